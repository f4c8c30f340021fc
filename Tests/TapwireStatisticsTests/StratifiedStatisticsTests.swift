import Foundation
@testable import TapwireStatistics
import Testing
import TapwireStatisticsOracle

/// Agresti A (2013), Categorical Data Analysis, 3rd ed., Wiley: the eight-centre clinical trial
/// of p. 226 (Beitler & Landis 1985; drug vs control, success/failure per centre). On p. 231 the
/// Mantel–Haenszel estimate of the common difference of proportions is 0.130 with a Sato
/// standard error of 0.050. As (successes, trials) of drug and control per centre:
private let agresti: [StratumCounts] = [
    StratumCounts(x1: 11, n1: 36, x2: 10, n2: 37), StratumCounts(x1: 16, n1: 20, x2: 22, n2: 32),
    StratumCounts(x1: 14, n1: 19, x2: 7, n2: 19), StratumCounts(x1: 2, n1: 16, x2: 1, n2: 17),
    StratumCounts(x1: 6, n1: 17, x2: 0, n2: 12), StratumCounts(x1: 1, n1: 11, x2: 0, n2: 10),
    StratumCounts(x1: 1, n1: 5, x2: 1, n2: 9), StratumCounts(x1: 4, n1: 6, x2: 6, n2: 7),
]

/// Tests/Statistics/mantel_haenszel.py: the same figures in exact rational arithmetic, written
/// from the cell counts, a second route to every number.
private func recompute(_ strata: [StratumCounts]) throws -> [String: Double?] {
    let input = "[" + strata.map { "[\($0.x1),\($0.n1),\($0.x2),\($0.n2)]" }.joined(separator: ",") + "]"
    let object = try #require(try StatisticsOracle.run("mantel_haenszel.py", input: Data(input.utf8)) as? [String: Any],
                              "no result from mantel_haenszel.py")
    return object.mapValues { ($0 as? NSNumber)?.doubleValue }
}

private func relativelyClose(_ a: Double?, _ b: Double??, _ tolerance: Double = 1e-9) -> Bool {
    guard let a, let b = b ?? nil else { return false }
    return abs(a - b) <= tolerance * max(1, abs(b))
}

private func randomStrata(count: Int, maxTrials: Int, seed: UInt64, oneSided: Int = 0) -> [StratumCounts] {
    var rng = SeededGenerator(seed: seed)
    var strata = (0..<count).map { _ -> StratumCounts in
        let n1 = Int.random(in: 1...maxTrials, using: &rng), n2 = Int.random(in: 1...maxTrials, using: &rng)
        return StratumCounts(x1: Int.random(in: 0...n1, using: &rng), n1: n1, x2: Int.random(in: 0...n2, using: &rng), n2: n2)
    }
    for i in 0..<oneSided { strata[i].n2 = 0; strata[i].x2 = 0 }
    return strata
}

@Suite("Mantel–Haenszel risk difference, Sato variance, CMH test")
struct MantelHaenszelTests {
    @Test func agrestiPublishedExample() throws {
        let mh = try #require(MantelHaenszelRiskDifference.estimate(agresti))
        #expect(abs(mh.difference - 0.130) < 0.0005, "difference \(mh.difference), published 0.130")
        #expect(abs(mh.variance.squareRoot() - 0.050) < 0.0005, "SE \(mh.variance.squareRoot()), published 0.050")
        #expect(abs(mh.ci95.lower - (mh.difference - ProportionStatistics.z95 * mh.variance.squareRoot())) < 1e-15)
        #expect(mh.strata == 8 && mh.excludedTrials == 0)
        // The CMH statistic of these data, 6.384 (P = 0.0115), recomputed below in exact arithmetic.
        #expect(abs((mh.chiSquare ?? 0) - 6.3841) < 0.0001)
        #expect(abs(mh.pValue - 0.011515) < 0.000001)
    }

    @Test(arguments: [
        ("Agresti 2013", agresti),
        ("many small strata", randomStrata(count: 400, maxTrials: 4, seed: 1)),
        ("strata with one side only", randomStrata(count: 30, maxTrials: 60, seed: 2, oneSided: 7)),
        ("a single stratum", [StratumCounts(x1: 130, n1: 1_000, x2: 90, n2: 800)]),
        ("zero engagement on one side", [StratumCounts(x1: 0, n1: 500, x2: 25, n2: 400), StratumCounts(x1: 0, n1: 50, x2: 3, n2: 70)]),
        ("large strata", randomStrata(count: 6, maxTrials: 50_000, seed: 3)),
    ])
    func equalsIndependentRecomputation(name: String, strata: [StratumCounts]) throws {
        let mh = try #require(MantelHaenszelRiskDifference.estimate(strata), "\(name)")
        let reference = try recompute(strata)
        #expect(relativelyClose(mh.difference, reference["difference"]), "\(name): difference \(mh.difference) vs \(String(describing: reference["difference"]))")
        #expect(relativelyClose(mh.variance, reference["variance"]), "\(name): variance")
        #expect(relativelyClose(mh.nullVariance, reference["nullVariance"]), "\(name): null variance")
        #expect(relativelyClose(mh.chiSquare, reference["chiSquare"]), "\(name): chi-square")
        #expect(relativelyClose(mh.pValue, reference["pValue"], 1e-7), "\(name): p-value \(mh.pValue)")
        #expect(Double(mh.strata) == reference["strata"] ?? nil && Double(mh.excludedTrials) == reference["excludedTrials"] ?? nil)
    }

    /// With one stratum the estimate is the plain difference, and the CMH statistic is the
    /// Pearson χ² (the pooled z-test squared) times (N − 1)/N: hypergeometric against binomial.
    @Test func singleStratumReducesToTheTwoProportionTest() throws {
        let s = StratumCounts(x1: 130, n1: 1_000, x2: 90, n2: 800)
        let mh = try #require(MantelHaenszelRiskDifference.estimate([s]))
        #expect(abs(mh.difference - (0.13 - 0.1125)) < 1e-15)
        let z = try #require(ProportionStatistics.zStatistic(x1: s.x1, n1: s.n1, x2: s.x2, n2: s.n2))
        let n = Double(s.n1 + s.n2)
        #expect(abs((mh.chiSquare ?? 0) - z * z * (n - 1) / n) < 1e-9)
        // Sato's variance of one stratum is the binomial one: p1q1/n1 + p2q2/n2.
        #expect(abs(mh.variance - (0.13 * 0.87 / 1_000 + 0.1125 * 0.8875 / 800)) < 1e-12)
    }

    /// With few large strata Sato's variance and Greenland–Robins' (the weighted sum of each
    /// stratum's binomial variance, Greenland & Robins 1985) agree: a different formula route.
    @Test func largeStrataAgreeWithGreenlandRobins() throws {
        let strata = [StratumCounts(x1: 4_100, n1: 20_000, x2: 3_000, n2: 18_000), StratumCounts(x1: 900, n1: 9_000, x2: 2_400, n2: 30_000),
                      StratumCounts(x1: 7_000, n1: 25_000, x2: 1_200, n2: 5_000)]
        let mh = try #require(MantelHaenszelRiskDifference.estimate(strata))
        var weighted = 0.0, weights = 0.0
        for s in strata {
            let n1 = Double(s.n1), n2 = Double(s.n2), p1 = Double(s.x1) / n1, p2 = Double(s.x2) / n2
            let w = n1 * n2 / (n1 + n2)
            weights += w
            weighted += w * w * (p1 * (1 - p1) / n1 + p2 * (1 - p2) / n2)
        }
        let greenlandRobins = weighted / (weights * weights)
        #expect(abs(mh.variance / greenlandRobins - 1) < 0.02, "Sato \(mh.variance) vs Greenland–Robins \(greenlandRobins)")
    }

    /// Simpson's paradox: rich wins inside both strata, loses when pooled.
    @Test func simpsonsParadoxKeepsTheWithinStrataSign() throws {
        let strata = [StratumCounts(x1: 90, n1: 900, x2: 7, n2: 100), StratumCounts(x1: 35, n1: 100, x2: 270, n2: 900)]
        let pooled = 125.0 / 1_000 - 277.0 / 1_000
        #expect(pooled < 0)
        let mh = try #require(MantelHaenszelRiskDifference.estimate(strata))
        #expect(mh.difference > 0.02 && mh.difference < 0.06, "\(mh.difference)")
        #expect(!mh.ci95.contains(pooled))
    }

    @Test func strataWithOneSideOnlyContributeNothing() throws {
        let both = [StratumCounts(x1: 30, n1: 200, x2: 20, n2: 210)]
        let oneSided = both + [StratumCounts(x1: 500, n1: 1_000, x2: 0, n2: 0), StratumCounts(x1: 0, n1: 0, x2: 3, n2: 77)]
        let a = try #require(MantelHaenszelRiskDifference.estimate(both))
        let b = try #require(MantelHaenszelRiskDifference.estimate(oneSided))
        #expect(a.difference == b.difference && a.variance == b.variance && a.pValue == b.pValue)
        #expect(b.strata == 1 && b.excludedTrials == 1_077)
        #expect(MantelHaenszelRiskDifference.estimate([StratumCounts(x1: 5, n1: 10, x2: 0, n2: 0)]) == nil)
    }

    @Test func zeroEngagementEverywhereHasNoEvidence() throws {
        let mh = try #require(MantelHaenszelRiskDifference.estimate([StratumCounts(x1: 0, n1: 300, x2: 0, n2: 200)]))
        #expect(mh.difference == 0 && mh.variance == 0 && mh.pValue == 1 && mh.chiSquare == nil)
        #expect(DetectionPower.minimumDetectableDifference(nullVariance: mh.nullVariance) == nil)
    }

    @Test func refusesSuccessesAboveTrials() {
        #expect(MantelHaenszelRiskDifference.estimate([StratumCounts(x1: 11, n1: 10, x2: 1, n2: 10)]) == nil)
    }
}

@Suite("Minimum detectable difference and days to detect")
struct DetectionPowerTests {
    /// For one stratum the null variance is p̄(1 − p̄)(1/n1 + 1/n2)·N/(N − 1), so the MDD is the
    /// textbook two-proportion one, (1.96 + 0.8416)·√(p̄q̄(1/n1 + 1/n2)), up to that factor.
    @Test func singleStratumMatchesTheTwoProportionFormula() throws {
        let s = StratumCounts(x1: 100, n1: 1_000, x2: 80, n2: 1_000)
        let mh = try #require(MantelHaenszelRiskDifference.estimate([s]))
        let mdd = try #require(DetectionPower.minimumDetectableDifference(nullVariance: mh.nullVariance))
        let p = 0.09
        let textbook = (1.959963984540054 + 0.8416212335729143) * (p * (1 - p) * (2.0 / 1_000)).squareRoot()
        #expect(abs(mdd / textbook - (2_000.0 / 1_999).squareRoot()) < 1e-12)
    }

    /// The projection's premise: with k times the samples in the same mix the MDD shrinks by √k.
    /// Days then land where the MDD equals the target.
    @Test func daysLandWhereTheDetectableDifferenceMeetsTheTarget() throws {
        let strata = randomStrata(count: 20, maxTrials: 500, seed: 9)
        let samples = strata.reduce(0) { $0 + $1.n1 + $1.n2 }
        let mdd = try #require(MantelHaenszelRiskDifference.estimate(strata).flatMap {
            DetectionPower.minimumDetectableDifference(nullVariance: $0.nullVariance)
        })
        let target = mdd / 2
        let perDay = Double(samples) / 10
        let days = try #require(DetectionPower.daysToDetect(target: target, mdd: mdd, samples: samples, samplesPerDay: perDay))
        #expect(abs(days - 30) < 1e-9) // 4× the samples: 10 days so far, 30 more
        let quadrupled = strata.map { StratumCounts(x1: $0.x1 * 4, n1: $0.n1 * 4, x2: $0.x2 * 4, n2: $0.n2 * 4) }
        let later = try #require(MantelHaenszelRiskDifference.estimate(quadrupled).flatMap {
            DetectionPower.minimumDetectableDifference(nullVariance: $0.nullVariance)
        })
        #expect(abs(later / target - 1) < 0.01, "MDD after 30 more days \(later), target \(target)")
        #expect(DetectionPower.daysToDetect(target: -mdd * 1.5, mdd: mdd, samples: samples, samplesPerDay: perDay) == 0)
        #expect(DetectionPower.daysToDetect(target: target, mdd: mdd, samples: samples, samplesPerDay: 0) == nil)
        #expect(DetectionPower.daysToDetect(target: 0, mdd: mdd, samples: samples, samplesPerDay: perDay) == nil)
        #expect(DetectionPower.daysToDetect(target: target, mdd: nil, samples: samples, samplesPerDay: perDay) == nil)
    }
}
