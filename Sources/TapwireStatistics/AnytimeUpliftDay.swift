/// The adjusted difference as of the end of one day, over every day up to it.
public struct AnytimeUpliftDay: Sendable, Equatable {
    public var day: String
    /// Nil when no stratum had both sides yet.
    public var estimate: AnytimeValidDifference?
    /// Why the day's figures are withheld (below the minimum sample), nil when shown.
    public var withheld: String?

    /// Shown, and the anytime-valid interval excludes 0.
    public var excludesZero: Bool {
        guard withheld == nil, let ci = estimate?.anytimeValid else { return false }
        return ci.lower > 0 || ci.upper < 0
    }
}
