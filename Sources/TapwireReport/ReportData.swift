import TapwireCore
import TapwireStatistics

/// Everything the report engine needs from the database for one scope, read in one snapshot.
public struct ReportData: Sendable, Equatable {
    /// Every local date of the range, in order (days without data included).
    public var days: [String]
    /// Several rows may share a key (whole days and cut parts, rollups and edge minutes): the
    /// builder adds them.
    public var totals: [ReportTotalsRow]
    public var trend: [ReportTrendRow]
    /// Only the versions whose dismissals are measurable may be here; others are ignored.
    public var dismiss: [ReportDismissRow]
    public var actions: [ReportActionRow]
    public var histograms: [ReportHistogramRow]
    public var uplift: [ReportUpliftDayRow]
    /// The campaigns with assignments in the range, each with its days up to the range's end.
    public var holdouts: [HoldoutCounts] = []
    /// Conversions (docs/outcomes.md): per category, side, name and currency; direct ones by the
    /// action before them; every conversion by its own time; rich vs text-only per whole UTC day.
    public var conversions: [ReportConversionRow] = []
    public var conversionActions: [ReportConversionActionRow] = []
    public var conversionTotals: [ReportConversionTotalRow] = []
    public var conversionUplift: [ReportConversionUpliftDayRow] = []
    /// The app's attribution windows; nil when the app is unknown.
    public var attribution: AttributionWindows?
    /// Why the report has no conversions although the app may have some: a filter or `--by` on a
    /// dimension a credited notification does not keep (only campaign and platform).
    public var conversionsOmitted: String?

    public init(days: [String], totals: [ReportTotalsRow] = [], trend: [ReportTrendRow] = [], dismiss: [ReportDismissRow] = [],
                actions: [ReportActionRow] = [], histograms: [ReportHistogramRow] = [], uplift: [ReportUpliftDayRow] = []) {
        self.days = days
        self.totals = totals
        self.trend = trend
        self.dismiss = dismiss
        self.actions = actions
        self.histograms = histograms
        self.uplift = uplift
    }
}
