import TapwireCore
import TapwireStatistics
import TapwireStore

/// Why an engagement rate over `base` is not meaningful, or nil when it is. Engaged can exceed
/// delivered when responses arrive without their deliveries, or when one notification gets
/// several engaging responses (an open, then a button); a share over 100% would be a lie.
public func engagementNotMeaningful(engaged: Int, base: Int, baseName: String = "delivered") -> String? {
    guard engaged > base else { return nil }
    return "engaged (\(Fmt.count(engaged))) exceeds \(baseName) (\(Fmt.count(base))): responses without their deliveries, "
        + "or several engaging responses to one notification; the rate is not meaningful"
}

/// The engagement report for one app and range: the single model every renderer draws.
public struct EngagementReport: Sendable, Equatable {
    /// 2: uplift differences are fractions (they were percentage points), with the adjusted
    /// difference, `confounded`, the minimum detectable difference and days to detect. 3: version
    /// 2 and conversions (docs/reports.md, "Schema version 3"); nothing of version 2 changed.
    public static let schemaVersion = 3

    public var app: String
    public var from: Timestamp
    public var to: Timestamp
    public var timeZone: String
    public var filters: ReportFilters
    public var groupBy: ReportDimension?
    public var source: ReportSource
    public var generatedAt: Timestamp
    public var minimumSample: MinimumSample
    /// `--target-difference` as a fraction; nil: per category, the observed or 2 pp.
    public var targetDifference: Double?
    public var days: [String]
    public var categories: [CategoryEngagement]
    public var overall: CategoryEngagement
    public var groups: [ReportGroup]
    /// Each campaign with assignments in the range: what its notifications caused, from its
    /// holdout (docs/holdouts.md). Per app: filters and `--by` do not split a campaign's arms.
    public var holdouts: [HoldoutEffect] = []
    /// Over the campaigns whose estimates are shown, stratified by campaign; nil under two.
    public var holdoutsCombined: HoldoutCombined?
    /// Every conversion of the range by name and currency, unattributed ones included.
    public var conversions: [ConversionTotal] = []
    /// The windows the conversions were attributed with; nil when the app has none stored.
    public var attribution: AttributionWindows?
    /// Why conversions are left out of this report (a filter or `--by` they cannot follow), or nil.
    public var conversionsOmitted: String?

    public static let replyLengthResolution = ReplyLengthBins.resolution
    public static let timeToResponseResolution = LatencyBins.resolution
}
