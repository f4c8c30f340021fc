/// One day's strata of the adjusted difference (campaign × platform of that UTC day, and
/// category for "All categories"): group 1 rich, group 2 text-only.
public struct DailyStrata: Sendable, Equatable {
    /// The report's label of the day (YYYY-MM-DD in its time zone).
    public var day: String
    /// The day's counts per stratum, by the caller's number for it: the order of the numbers is
    /// the order the sums are taken in.
    public var strata: [Int: StratumCounts]

    public init(day: String, strata: [Int: StratumCounts]) {
        self.day = day
        self.strata = strata
    }
}
