import TapwireStatistics

/// Over several campaigns: the Mantel–Haenszel risk difference stratified by campaign (each
/// campaign compared only with its own held-out devices; never the arms pooled across campaigns,
/// whose holdout shares and base rates differ), over the campaigns whose estimates are shown.
public struct HoldoutCombined: Sendable, Equatable {
    public var campaigns: [String]
    public var difference: Double
    public var ci95: ConfidenceInterval
    public var pValue: Double

    public init?(_ effects: [HoldoutEffect]) {
        let used = effects.filter { $0.withheld == nil }
        guard used.count >= 2,
              let mh = MantelHaenszelRiskDifference.estimate(used.map {
                  StratumCounts(x1: $0.treated.converted, n1: $0.treated.devices, x2: $0.heldOut.converted, n2: $0.heldOut.devices)
              }) else { return nil }
        campaigns = used.map(\.campaign)
        difference = mh.difference
        ci95 = mh.ci95
        pValue = mh.pValue
    }

    /// What the report says of opens instead of a number.
    public static let opensNote = "no incremental effect on opens is shown: a held-out device was sent nothing to open"
}
