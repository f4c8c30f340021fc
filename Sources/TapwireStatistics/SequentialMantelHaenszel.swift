/// A Mantel–Haenszel difference looked at again and again as counts arrive, with the
/// anytime-valid interval of `NormalMixtureBoundary` around it. The release-regression rule
/// looks every hour with strata of platform × UTC day; the rich vs text-only uplift looks every
/// day with its campaign × version × platform strata (docs/regressions.md).
///
/// Strata are numbered by the caller. A stratum's counts grow until it is closed (its UTC day
/// is over); closed strata are summed once, so a look costs the open strata only.
public struct SequentialMantelHaenszel: Sendable, Equatable {
    private var closed = MantelHaenszelSums()
    private var closedPooled = StratumCounts(x1: 0, n1: 0, x2: 0, n2: 0)
    private var closedNotMeaningful = 0
    /// Open strata, by the caller's number, in the order they opened (so sums never depend on hashing).
    private var open: [StratumCounts] = []
    private var openIndex: [Int: Int] = [:]

    public init() {}

    /// Adds counts to stratum `id` (opened by its first counts).
    public mutating func add(_ counts: StratumCounts, to id: Int) {
        if let i = openIndex[id] {
            open[i].x1 += counts.x1
            open[i].n1 += counts.n1
            open[i].x2 += counts.x2
            open[i].n2 += counts.n2
        } else {
            openIndex[id] = open.count
            open.append(counts)
        }
    }

    /// Freezes every open stratum: it will get no more counts.
    public mutating func closeOpenStrata() {
        for s in open { Self.include(s, into: &closed, pooled: &closedPooled, notMeaningful: &closedNotMeaningful) }
        open = []
        openIndex = [:]
    }

    /// A stratum with more outcomes than deliveries on a side (responses counted in a stratum
    /// other than their delivery's, or several responses to one notification) is not a pair of
    /// proportions: it is left out, and its deliveries counted as not meaningful.
    private static func include(_ s: StratumCounts, into sums: inout MantelHaenszelSums, pooled: inout StratumCounts,
                                notMeaningful: inout Int) {
        guard s.isValid else {
            notMeaningful += s.n1 + s.n2
            return
        }
        sums.add(s)
        if s.contributes {
            pooled.x1 += s.x1
            pooled.n1 += s.n1
            pooled.x2 += s.x2
            pooled.n2 += s.n2
        }
    }

    /// Every stratum so far, closed and open.
    public var current: Snapshot {
        var sums = closed, pooled = closedPooled, notMeaningful = closedNotMeaningful
        for s in open { Self.include(s, into: &sums, pooled: &pooled, notMeaningful: &notMeaningful) }
        return Snapshot(sums: sums, pooled: pooled, notMeaningfulTrials: notMeaningful)
    }

    /// The strata summed at one look.
    public struct Snapshot: Sendable, Equatable {
        public var sums: MantelHaenszelSums
        /// Both groups' totals over the strata with both groups present (the pooled comparison).
        public var pooled: StratumCounts
        /// Trials of strata left out because a side had more outcomes than trials.
        public var notMeaningfulTrials: Int

        public init(sums: MantelHaenszelSums, pooled: StratumCounts, notMeaningfulTrials: Int) {
            self.sums = sums
            self.pooled = pooled
            self.notMeaningfulTrials = notMeaningfulTrials
        }

        /// The look's difference, the variance its interval uses and the anytime-valid interval
        /// (clamped to −1…1); nil when no stratum has both groups. What an hourly look needs,
        /// without the test statistics `estimate` adds.
        ///
        /// The interval's standard error is the larger of Sato's and the hypergeometric one under
        /// no difference. Sato's alone shrinks with the observed outcomes of a side, so a side
        /// that by chance has none yet (a rare button on a new version's first day) would look
        /// like a certain drop; under no difference the null variance is the exact scale of the
        /// CMH statistic, and it does not depend on how the outcomes split between the groups.
        public func interval(boundary: NormalMixtureBoundary) -> (difference: Double, variance: Double, anytimeValid: ConfidenceInterval)? {
            guard let difference = sums.difference else { return nil }
            let variance = max(sums.satoVariance(difference: difference), sums.nullVariance)
            let ci = boundary.interval(estimate: difference, standardError: variance.squareRoot(), time: sums.weights)
            return (difference, variance, ConfidenceInterval(lower: max(-1, ci.lower), upper: min(1, ci.upper)))
        }

        /// The look's estimate with both intervals; nil when no stratum has both groups.
        public func estimate(boundary: NormalMixtureBoundary) -> AnytimeValidDifference? {
            guard let look = interval(boundary: boundary), let mh = MantelHaenszelRiskDifference.estimate(sums) else { return nil }
            return AnytimeValidDifference(mantelHaenszel: mh, variance: look.variance, anytimeValid: look.anytimeValid,
                                          effectiveTrials: sums.weights, pooled: pooled)
        }
    }
}
