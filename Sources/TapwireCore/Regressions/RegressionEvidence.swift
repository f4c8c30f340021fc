import TapwireStatistics

/// What one look saw: the stratified difference (candidate − baseline, a fraction) under the
/// boundary, the pooled one beside it, both sides' totals and the drop it is tested against.
public struct RegressionEvidence: Sendable, Equatable {
    /// The end of the look's last hour (or the evaluation instant, within a partial hour), µs.
    public var lookAt: Int64
    /// Mantel–Haenszel over platform × UTC day (× segment).
    public var difference: Double
    /// At the series' alpha (the family's, split), valid at every look.
    public var anytimeValid: ConfidenceInterval
    /// Sato's 95% interval: what a single look decided in advance could claim.
    public var fixedHorizon95: ConfidenceInterval
    /// The variance behind `anytimeValid`: the larger of Sato's and the one under no difference.
    public var variance: Double
    public var pooledDifference: Double
    public var candidate: RegressionSide
    public var baseline: RegressionSide
    /// The baseline's rate standardised to the strata's weights: what the drop is a share of.
    public var referenceRate: Double
    /// The drop tested against, a fraction: minimumRelativeDrop × referenceRate.
    public var minimumDrop: Double
    /// Σ n1·n2/N: the boundary's time.
    public var effectiveDeliveries: Double
    /// Strata with both sides.
    public var strata: Int
    /// Deliveries of strata (platform × day) in which a side had more responses than
    /// deliveries, left out.
    public var notMeaningfulDeliveries: Int

    /// The whole interval lies below −minimumDrop: a drop at least that large, at this look.
    public var crossesMinimumDrop: Bool { anytimeValid.upper < -minimumDrop }
    /// The whole interval lies above −minimumDrop: a drop that large is ruled out.
    public var rulesOutMinimumDrop: Bool { anytimeValid.lower > -minimumDrop }
}

extension RegressionEvidence: Codable {}
