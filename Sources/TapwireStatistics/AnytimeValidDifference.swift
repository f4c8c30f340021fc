/// One look's Mantel–Haenszel difference with both intervals: the fixed-horizon 95% one (valid
/// for a single look decided in advance) and the anytime-valid one (valid at every look).
public struct AnytimeValidDifference: Sendable, Equatable {
    public var mantelHaenszel: MantelHaenszelRiskDifference
    /// The variance behind the anytime-valid interval: max(Sato's, the null one).
    public var variance: Double
    /// Clamped to −1…1, like the fixed-horizon interval.
    public var anytimeValid: ConfidenceInterval
    /// Σ n1·n2/N over the strata: the time of the boundary.
    public var effectiveTrials: Double
    /// Both groups' totals over the strata with both groups present.
    public var pooled: StratumCounts

    public var difference: Double { mantelHaenszel.difference }
    public var fixedHorizon95: ConfidenceInterval { mantelHaenszel.ci95 }
    /// The first group's rate minus the second's, pooled over the same strata: mix and all.
    public var pooledDifference: Double { Double(pooled.x1) / Double(pooled.n1) - Double(pooled.x2) / Double(pooled.n2) }
}
