import TapwireCore
import TapwireStatistics
import TapwireStore

/// The engagement of one category, or of all of them (`category == nil`).
public struct CategoryEngagement: Sendable, Equatable {
    public var category: String?
    /// The manifest's human label, when one was registered.
    public var title: String?
    public var delivered: Int
    public var sent: Int
    public var opens: Int
    public var actions: [ActionCount]
    public var textReplies: TextReplies
    public var dismiss: DismissStats
    /// opens + custom actions (text replies are among them).
    public var engaged: Int
    public var base: EngagementBase
    public var engagementRate: Double?
    public var engagementCI95: ConfidenceInterval?
    /// Set when engaged exceeds the base: rate and interval are then withheld.
    public var engagementNotMeaningful: String?
    public var uplift: RichUplift
    public var media: MediaFailure
    public var timeToResponse: TimeToResponse
    public var daily: [DailyPoint]
    /// In an overall: the categories its figures leave out, and why. Empty for a category.
    public var excludedCategories: [OverallExclusion] = []
    /// What the notifications led to, per conversion name and currency (docs/reports.md, "Conversions").
    public var conversions: [CategoryConversion] = []
    /// Direct conversions by the action of the tap before them, then by name (opens under Apple's
    /// default action identifier), each keyed by its bytes (`Bytewise`).
    public var directConversionsByAction: [Bytewise<String>: [Bytewise<String>: Int]] = [:]
    /// Rich vs text-only on each conversion name, as `uplift` is on engagement.
    public var conversionUplift: [ConversionUplift] = []

    public var baseCount: Int { base == .delivered ? delivered : sent }
    public var displayName: String {
        guard let category else { return "All categories" }
        return category.isEmpty ? "(no category)" : category
    }
}
