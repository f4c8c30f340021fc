import TapwireCore
import TapwireStatistics

/// The sums over the strata (campaign × platform) of one category on one whole UTC day of the
/// range: what the adjusted difference and its daily looks add up (rollup_uplift_days,
/// tapwire_uplift_terms in migration 0150).
public struct ReportUpliftDayRow: Sendable, Equatable {
    /// The sums over every group's strata: what the report as a whole shows. With `--by` a
    /// group by a dimension the strata do not keep splits strata, whose terms do not add up, so
    /// the whole report has rows of its own.
    public var wholeReport: Bool
    public var group: String
    public var category: String
    /// Days since 1970-01-01.
    public var utcDay: Int
    public var day: UpliftDay

    public init(wholeReport: Bool = true, group: String = "", category: String, utcDay: Int, day: UpliftDay) {
        self.wholeReport = wholeReport
        self.group = group
        self.category = category
        self.utcDay = utcDay
        self.day = day
    }
}
