@testable import TapwireStatistics
import Testing

/// Published reference values, rounded to 4 decimals as the papers print them.
private func close(_ a: Double?, _ b: Double, _ tolerance: Double = 0.00005) -> Bool {
    guard let a else { return false }
    return abs(a - b) <= tolerance
}

@Suite("Wilson score interval")
struct WilsonTests {
    // Newcombe RG (1998a), "Two-sided confidence intervals for the single proportion: comparison
    // of seven methods", Statistics in Medicine 17:857-872, Table I, method 3 (Wilson score
    // without continuity correction), examples 81/263, 15/148, 0/20 and 1/29.
    @Test(arguments: [
        (81, 263, 0.2553, 0.3662),
        (15, 148, 0.0624, 0.1605),
        (0, 20, 0.0000, 0.1611),
        (1, 29, 0.0061, 0.1718),
    ])
    func newcombeSingleProportionExamples(x: Int, n: Int, lower: Double, upper: Double) throws {
        let ci = try #require(ProportionStatistics.wilson(successes: x, trials: n))
        #expect(close(ci.lower, lower), "lower \(ci.lower) for \(x)/\(n)")
        #expect(close(ci.upper, upper), "upper \(ci.upper) for \(x)/\(n)")
    }

    // Wilson EB (1927), "Probable inference, the law of succession, and statistical inference",
    // JASA 22:209-212: the interval is the pair of roots of (p̂ − p)² = z²p(1 − p)/n. Checking
    // that defining equation at both bounds tests the closed form independently of any table.
    @Test(arguments: [(7, 10), (1, 3), (450, 1000), (2, 50_000)])
    func boundsSolveWilsonsQuadratic(x: Int, n: Int) throws {
        let ci = try #require(ProportionStatistics.wilson(successes: x, trials: n))
        let pHat = Double(x) / Double(n)
        let z = ProportionStatistics.z95
        for p in [ci.lower, ci.upper] {
            let residual = (pHat - p) * (pHat - p) - z * z * p * (1 - p) / Double(n)
            #expect(abs(residual) < 1e-12, "bound \(p) does not solve Wilson's equation for \(x)/\(n)")
        }
        #expect(ci.lower < pHat && pHat < ci.upper)
    }

    @Test func edgeCases() throws {
        // n of n: the upper bound is exactly 1 and the lower bound is n/(n + z²) (Wilson 1927 with p̂ = 1).
        let all = try #require(ProportionStatistics.wilson(successes: 20, trials: 20))
        #expect(all.upper == 1)
        #expect(close(all.lower, 20 / (20 + ProportionStatistics.z95 * ProportionStatistics.z95), 1e-12))
        // The mirror image of Newcombe's 0/20 example.
        #expect(close(all.lower, 1 - 0.1611))
        let none = try #require(ProportionStatistics.wilson(successes: 0, trials: 20))
        #expect(none.lower == 0)
        // n = 0: no interval, not a fake [0, 1].
        #expect(ProportionStatistics.wilson(successes: 0, trials: 0) == nil)
        #expect(ProportionStatistics.wilson(successes: 3, trials: 2) == nil)
    }
}

@Suite("Newcombe hybrid score interval for a difference")
struct NewcombeDifferenceTests {
    // Newcombe RG (1998b), "Interval estimation for the difference between independent
    // proportions: comparison of eleven methods", Statistics in Medicine 17:873-890, Table II,
    // method 10 (score interval combining Wilson intervals, no continuity correction).
    @Test(arguments: [
        (56, 70, 48, 80, 0.0524, 0.3339),   // example (a)
        (9, 10, 3, 10, 0.1705, 0.8090),     // example (b)
        (5, 56, 0, 29, -0.0381, 0.1926),    // example (d)
        (0, 10, 0, 20, -0.1611, 0.2775),    // example (e)
        (0, 10, 0, 10, -0.2775, 0.2775),    // example (f)
    ])
    func newcombeTableII(x1: Int, n1: Int, x2: Int, n2: Int, lower: Double, upper: Double) throws {
        let ci = try #require(ProportionStatistics.newcombeDifference(x1: x1, n1: n1, x2: x2, n2: n2))
        #expect(close(ci.lower, lower), "lower \(ci.lower) for \(x1)/\(n1) − \(x2)/\(n2)")
        #expect(close(ci.upper, upper), "upper \(ci.upper) for \(x1)/\(n1) − \(x2)/\(n2)")
    }

    // The same example (a) by method 1 (the simple asymptotic "Wald" interval) is 0.0575 to
    // 0.3425 in Newcombe's Table II. That figure is sometimes quoted as the hybrid interval; it
    // is not, and this test keeps the two apart.
    @Test func exampleAWaldIsNotMethod10() throws {
        let p1 = 56.0 / 70, p2 = 48.0 / 80
        let half = ProportionStatistics.z95 * (p1 * (1 - p1) / 70 + p2 * (1 - p2) / 80).squareRoot()
        #expect(close(p1 - p2 - half, 0.0575) && close(p1 - p2 + half, 0.3425))
        let ci = try #require(ProportionStatistics.newcombeDifference(x1: 56, n1: 70, x2: 48, n2: 80))
        #expect(!close(ci.lower, 0.0575) && !close(ci.upper, 0.3425))
    }

    @Test func edgeCases() throws {
        // n of n against 0 of n: the upper bound is capped at exactly 1.
        let extreme = try #require(ProportionStatistics.newcombeDifference(x1: 10, n1: 10, x2: 0, n2: 10))
        #expect(extreme.upper == 1)
        #expect(extreme.lower > 0.5 && extreme.lower < 1)
        // Swapping the sides mirrors the interval.
        let a = try #require(ProportionStatistics.newcombeDifference(x1: 56, n1: 70, x2: 48, n2: 80))
        let b = try #require(ProportionStatistics.newcombeDifference(x1: 48, n1: 80, x2: 56, n2: 70))
        #expect(close(a.lower, -b.upper, 1e-12) && close(a.upper, -b.lower, 1e-12))
        #expect(ProportionStatistics.newcombeDifference(x1: 0, n1: 0, x2: 3, n2: 10) == nil)
    }
}

@Suite("Two-proportion z-test and lift")
struct ZTestTests {
    // Agresti A (2007), "An Introduction to Categorical Data Analysis", 2nd ed., Wiley, the
    // Physicians' Health Study (Table 2.3): myocardial infarction in 189 of 11,034 on placebo and
    // 104 of 11,037 on aspirin; Pearson X² = 25.01 with df = 1 (section 2.4). The pooled z
    // statistic squared is that X².
    @Test func physiciansHealthStudy() throws {
        let z = try #require(ProportionStatistics.zStatistic(x1: 189, n1: 11_034, x2: 104, n2: 11_037))
        #expect(abs(z * z - 25.01) < 0.01, "z² = \(z * z)")
        let p = try #require(ProportionStatistics.twoProportionPValue(x1: 189, n1: 11_034, x2: 104, n2: 11_037))
        #expect(p < 1e-6 && p > 1e-7, "p = \(p)")
    }

    // Standard normal table (e.g. Abramowitz & Stegun 1964, Table 26.1): P(|Z| ≥ 1.959964) = 0.05,
    // P(|Z| ≥ 2.575829) = 0.01, P(|Z| ≥ 1) = 0.3173.
    @Test func normalTail() {
        #expect(close(ProportionStatistics.twoSidedNormalPValue(1.959963984540054), 0.05, 1e-9))
        #expect(close(ProportionStatistics.twoSidedNormalPValue(-2.5758293035489), 0.01, 1e-9))
        #expect(close(ProportionStatistics.twoSidedNormalPValue(1), 0.3173, 0.00005))
    }

    @Test func edgeCases() {
        // Both sides 0 of n (or n of n): no variance, no evidence of a difference.
        #expect(ProportionStatistics.twoProportionPValue(x1: 0, n1: 50, x2: 0, n2: 40) == 1)
        #expect(ProportionStatistics.twoProportionPValue(x1: 50, n1: 50, x2: 40, n2: 40) == 1)
        #expect(ProportionStatistics.twoProportionPValue(x1: 0, n1: 0, x2: 1, n2: 4) == nil)
        // Equal rates: z = 0, p = 1.
        #expect(close(ProportionStatistics.twoProportionPValue(x1: 10, n1: 100, x2: 20, n2: 200), 1, 1e-12))
    }

    @Test func relativeLift() {
        // VWO's published rich-push figures (docs/domain.md, "Published rich-push figures"): 9.2% vs 6.9% CTR is a lift of 0.333….
        #expect(close(ProportionStatistics.relativeLift(x1: 92, n1: 1000, x2: 69, n2: 1000), 23.0 / 69.0, 1e-12))
        #expect(ProportionStatistics.relativeLift(x1: 5, n1: 10, x2: 0, n2: 10) == nil)
        #expect(ProportionStatistics.relativeLift(x1: 5, n1: 0, x2: 1, n2: 10) == nil)
    }
}

@Suite("Minimum sample rule")
struct MinimumSampleTests {
    @Test func defaultsAndOverride() {
        let rule = MinimumSample.default
        #expect(rule.perSide == 100)
        // Newcombe's example (a) is too small for the default rule…
        let small = ProportionComparison(x1: 56, n1: 70, x2: 48, n2: 80)
        #expect(!small.sufficient)
        #expect(small.difference == nil && small.pValue == nil && small.differenceCI == nil)
        // …but reported when the caller lowers the floor, with Newcombe's interval.
        let lowered = ProportionComparison(x1: 56, n1: 70, x2: 48, n2: 80, minimum: MinimumSample(perSide: 50))
        #expect(lowered.sufficient)
        #expect(close(lowered.difference, 0.2, 1e-12))
        #expect(close(lowered.differenceCI?.lower, 0.0524) && close(lowered.differenceCI?.upper, 0.3339))
        #expect(close(lowered.relativeLift, 0.2 / 0.6, 1e-12))
        #expect(lowered.pValue.map { $0 > 0.005 && $0 < 0.01 } == true)
    }

    @Test func expectedCountRule() {
        // 1000 per side but only 3 engaged in all: expected engaged count 1.5 < 5.
        let rare = ProportionComparison(x1: 2, n1: 1000, x2: 1, n2: 1000)
        #expect(!rare.sufficient)
        #expect(rare.insufficientReason?.contains("expected") == true)
        let fine = ProportionComparison(x1: 200, n1: 1000, x2: 150, n2: 1000)
        #expect(fine.sufficient)
        // n = 0 on a side is always insufficient.
        #expect(!ProportionComparison(x1: 0, n1: 0, x2: 10, n2: 1000, minimum: MinimumSample(perSide: 0, expectedCount: 0)).sufficient)
    }
}
