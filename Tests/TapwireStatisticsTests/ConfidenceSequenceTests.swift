import Foundation
@testable import TapwireStatistics
import Testing
import TapwireStatisticsOracle

@Suite("Howard et al. normal mixture confidence sequence")
struct ConfidenceSequenceTests {
    /// The authors' own reference values: confseq (github.com/gostevehoward/confseq),
    /// test/uniform_boundaries_unittest.cpp, TestTwoSidedNormalMixture, "from a reference
    /// implementation in R": best_rho(100, 0.05) = 12.60056, the log mixture at s = 10, v = 100 is
    /// −0.6510052, and the boundary at v = 100, α = 0.05 is 30.35209.
    @Test func authorsPublishedValues() {
        let boundary = NormalMixtureBoundary(alpha: 0.05, optimizedAt: 100)
        #expect(abs(boundary.rho - 12.60056) < 1e-5, "\(boundary.rho)")
        #expect(abs(boundary.logMixture(sum: 10, intrinsicTime: 100) - -0.6510052) < 1e-6)
        #expect(abs(boundary.bound(intrinsicTime: 100) - 30.35209) < 1e-5)
    }

    /// GrowthBook's worked example (packages/stats/tests/frequentist/test_tests.py,
    /// test_sequential_test_runs_prop): 1,396 of 3,000 against 2,422 of 3,461, the relative lift
    /// 0.50386 with its delta-method standard error 0.03386, default tuning 5,000 at α = 0.05,
    /// time = both arms' total: the sequential interval is [0.40098, 0.60675].
    @Test func growthBookWorkedExample() {
        let pa = 1_396.0 / 3_000, pb = 2_422.0 / 3_461
        let lift = (pb - pa) / pa
        let variance = pb * (1 - pb) / (3_461 * pa * pa) + pa * (1 - pa) * pb * pb / (3_000 * pa * pa * pa * pa)
        #expect(abs(lift - 0.50386) < 5e-6 && abs(variance.squareRoot() - 0.03386) < 5e-6)
        let interval = NormalMixtureBoundary(alpha: 0.05, optimizedAt: 5_000)
            .interval(estimate: lift, standardError: variance.squareRoot(), time: 6_461)
        #expect(abs(interval.lower - 0.40098) < 5e-6, "\(interval.lower)")
        #expect(abs(interval.upper - 0.60675) < 5e-6, "\(interval.upper)")
    }

    /// Tests/Statistics/confidence_sequence.py in 50-digit arithmetic, written in Eppo's form of
    /// the boundary (the logarithm of (t + ρ)/(ρα²), ρ from log(log(e/α²)) − 2·log α).
    @Test func equalsIndependentRecomputation() throws {
        var cases: [[String: Any]] = []
        for alpha in [0.05, 0.01, 0.05 / 7, 0.05 / 80, 1e-6] {
            for tuning in [100.0, 2_500, 10_000] {
                for time in [0.5, 10, 250, 2_500, 1e5, 1e8] {
                    cases.append(["alpha": alpha, "tuning": tuning, "time": time, "sum": time.squareRoot() * 2.5])
                }
            }
        }
        let reference = try #require(try StatisticsOracle.run(["mode": "boundary", "cases": cases])["cases"] as? [[String: Any]])
        try #require(reference.count == cases.count)
        for (c, r) in zip(cases, reference) {
            let alpha = c["alpha"] as! Double, time = c["time"] as! Double, sum = c["sum"] as! Double
            let boundary = NormalMixtureBoundary(alpha: alpha, optimizedAt: c["tuning"] as! Double)
            #expect(StatisticsOracle.close(boundary.rho, r["rho"], relative: 1e-12), "\(c): rho")
            #expect(StatisticsOracle.close(boundary.bound(intrinsicTime: time), r["bound"], relative: 1e-12), "\(c): bound")
            #expect(StatisticsOracle.close(boundary.standardErrors(time: time), r["standardErrors"], relative: 1e-12), "\(c): standard errors")
            #expect(StatisticsOracle.close(boundary.logMixture(sum: sum, intrinsicTime: time), r["logMixture"], relative: 1e-12), "\(c): log mixture")
        }
    }

    /// The boundary is where the mixture reaches 1/α, and the always-valid p-value falls below α
    /// exactly when the interval excludes 0.
    @Test func boundaryMixtureAndPValueAgree() {
        let boundary = NormalMixtureBoundary(alpha: 0.01, optimizedAt: 1_000)
        for v in [1.0, 50, 1_000, 1e6] {
            let u = boundary.bound(intrinsicTime: v)
            #expect(abs(boundary.logMixture(sum: u, intrinsicTime: v) - log(100)) < 1e-9)
            #expect(abs(boundary.standardErrors(time: v) - u / v.squareRoot()) < 1e-9 * u)
        }
        for (estimate, se) in [(0.01, 0.004), (0.02, 0.004), (-0.03, 0.01), (0.0, 0.01)] {
            let interval = boundary.interval(estimate: estimate, standardError: se, time: 800)
            let p = boundary.alwaysValidPValue(estimate: estimate, standardError: se, time: 800)
            #expect((p < 0.01) == (interval.lower > 0 || interval.upper < 0), "\(estimate) ± \(se): p \(p), \(interval)")
        }
    }

    /// ρ from the tuning time is (near) the one that makes the interval narrowest at that time,
    /// the interval is always wider than the fixed-horizon one, and narrower with a larger α.
    @Test func tuningAndWidth() {
        let alpha = 0.05, m = 2_500.0
        let best = NormalMixtureBoundary(alpha: alpha, optimizedAt: m)
        for factor in [0.5, 0.8, 1.25, 2] {
            #expect(best.standardErrors(time: m) < NormalMixtureBoundary(alpha: alpha, rho: best.rho * factor).standardErrors(time: m))
        }
        for t in [1.0, 100, 2_500, 1e6] {
            #expect(best.standardErrors(time: t) > ProportionStatistics.z95)
            #expect(NormalMixtureBoundary(alpha: 0.10, optimizedAt: m).standardErrors(time: t) < best.standardErrors(time: t))
        }
        #expect(best.standardErrors(time: 0) == .infinity)
    }

    /// Ville's inequality in action: Gaussian sums looked at after every step for 1,000 steps
    /// cross the α = 0.05 boundary in at most 5% of 2,000 seeded paths, while a fixed 95%
    /// interval looked at every step is crossed in a large share of them.
    @Test func gaussianPathsCrossRarely() {
        var rng = SeededGenerator(seed: 7)
        let boundary = NormalMixtureBoundary(alpha: 0.05, optimizedAt: 500)
        let steps = 1_000, paths = 2_000
        let bounds = (1...steps).map { boundary.bound(intrinsicTime: Double($0)) }
        let fixed = (1...steps).map { ProportionStatistics.z95 * Double($0).squareRoot() }
        var mixtureCrossings = 0, peekingCrossings = 0
        for _ in 0..<paths {
            var s = 0.0, mixture = false, peeking = false
            for t in 0..<steps {
                // Box–Muller from two uniforms in (0, 1).
                let u1 = (Double(rng.next() >> 11) + 0.5) * 0x1p-53, u2 = (Double(rng.next() >> 11) + 0.5) * 0x1p-53
                s += (-2 * log(u1)).squareRoot() * cos(2 * Double.pi * u2)
                if abs(s) >= bounds[t] { mixture = true }
                if abs(s) >= fixed[t] { peeking = true }
            }
            if mixture { mixtureCrossings += 1 }
            if peeking { peekingCrossings += 1 }
        }
        let rate = ProportionStatistics.wilson(successes: mixtureCrossings, trials: paths)!
        print("Gaussian paths, 1,000 looks: the α = 0.05 mixture boundary crossed in \(mixtureCrossings) of \(paths), "
              + "the fixed 95% interval in \(peekingCrossings)")
        #expect(rate.upper <= 0.05, "\(mixtureCrossings) of \(paths) crossed")
        #expect(peekingCrossings > paths / 3, "\(peekingCrossings) of \(paths) crossed the fixed interval")
    }
}
