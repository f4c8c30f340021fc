import Foundation
import TapwireStatistics
import Testing
@testable import TapwireReport

/// The incremental effect of one campaign and over campaigns (docs/holdouts.md), each figure
/// recomputed here from its published formula rather than through the production's helpers.
@Suite struct HoldoutEffectTests {
    static func arm(_ assigned: Int, _ converted: Int, values: [Decimal] = []) -> HoldoutCounts.Arm {
        HoldoutCounts.Arm(assigned: assigned, converted: converted, valueSum: values.reduce(0, +),
                          valueSquares: values.reduce(0) { $0 + $1 * $1 }, valueCubes: values.reduce(0) { $0 + $1 * $1 * $1 })
    }

    static func counts(_ days: [(treated: HoldoutCounts.Arm, heldOut: HoldoutCounts.Arm)], share: Double = 0.1,
                       shares: [Double]? = nil) -> HoldoutCounts {
        HoldoutCounts(campaign: "spring", window: "7 days", statedShares: shares ?? [share],
                      days: days.enumerated().map { HoldoutCounts.Day(day: String(format: "2026-12-%02d", $0.offset + 1),
                                                                      treated: $0.element.treated, heldOut: $0.element.heldOut) })
    }

    /// Sato (1989) for one stratum: (d·P + Q)/W², W = n1·n2/N,
    /// P = (n2²·x1 − n1²·x2 + n1·n2·(n2 − n1)/2)/N², Q = (x1·(n2 − x2) + x2·(n1 − x1))/(2N).
    static func satoVariance(x1: Double, n1: Double, x2: Double, n2: Double) -> Double {
        let n = n1 + n2, w = n1 * n2 / n, d = x1 / n1 - x2 / n2
        let p = (n2 * n2 * x1 - n1 * n1 * x2 + n1 * n2 * (n2 - n1) / 2) / (n * n)
        let q = (x1 * (n2 - x2) + x2 * (n1 - x1)) / (2 * n)
        return (d * p + q) / (w * w)
    }

    /// Treated 9,000 devices, 540 converted (6%); held out 1,000, 50 converted (5%).
    @Test func theDifferenceItsIntervalsAndTheSplit() throws {
        let effect = HoldoutEffect(Self.counts([(Self.arm(4_500, 250), Self.arm(500, 20)), (Self.arm(4_500, 290), Self.arm(500, 30))]))
        #expect(effect.withheld == nil)
        #expect(effect.treated.devices == 9_000 && effect.treated.converted == 540 && effect.heldOut.devices == 1_000)
        let d = try #require(effect.difference)
        #expect(abs(d - 0.01) < 1e-12)
        #expect(abs(try #require(effect.relativeLift) - 0.2) < 1e-12)
        // Newcombe's hybrid score interval (method 10): Wilson limits of each rate, then
        // d − √((p1 − l1)² + (u2 − p2)²), d + √((u1 − p1)² + (p2 − l2)²).
        func wilson(_ x: Double, _ n: Double) -> (Double, Double) {
            let z = 1.959963984540054, p = x / n, c = p + z * z / (2 * n), r = z * ((p * (1 - p) + z * z / (4 * n)) / n).squareRoot()
            return ((c - r) / (1 + z * z / n), (c + r) / (1 + z * z / n))
        }
        let (l1, u1) = wilson(540, 9_000), (l2, u2) = wilson(50, 1_000)
        let ci = try #require(effect.ci95)
        #expect(abs(ci.lower - (d - ((0.06 - l1) * (0.06 - l1) + (u2 - 0.05) * (u2 - 0.05)).squareRoot())) < 1e-12)
        #expect(abs(ci.upper - (d + ((u1 - 0.06) * (u1 - 0.06) + (0.05 - l2) * (0.05 - l2)).squareRoot())) < 1e-12)
        // The split is exactly 90/10: χ² = 0, p = 1; Lindon & Malek's BF from log-gammas here.
        #expect(effect.srm.pValue == 1 && effect.srm.observedShare == 0.1 && effect.srm.expectedShare == 0.1 && !effect.srm.mismatch)
        func logBF(_ t: Int, _ h: Int) -> Double {
            let a = [90.0, 10.0], x = [Double(t), Double(h)], pi = [0.9, 0.1]
            var v = lgamma(100) - lgamma(100 + x[0] + x[1])
            for i in 0..<2 { v += lgamma(a[i] + x[i]) - lgamma(a[i]) - x[i] * log(pi[i]) }
            return v
        }
        let sequential = min(1, exp(-logBF(4_500, 500)), exp(-logBF(9_000, 1_000)))
        #expect(abs(try #require(effect.srm.sequentialPValue) - sequential) < 1e-9)
        // The anytime-valid interval at the last look: d ± σ·u(t)/√t (Howard et al. 2021), σ² the
        // larger of Sato's (1989) variance of one stratum and the hypergeometric one under no
        // difference, t = n1·n2/N, ρ tuned for t = 2,500.
        let t = 9_000.0 * 1_000 / 10_000, alpha = 0.05
        let rho = 2_500 / (2 * log(1 / alpha) + log(1 + 2 * log(1 / alpha)))
        let sato = Self.satoVariance(x1: 540, n1: 9_000, x2: 50, n2: 1_000)
        let pooled = 590.0 / 10_000
        let null = pooled * (1 - pooled) * (1 / 9_000.0 + 1 / 1_000.0) * 10_000 / 9_999
        let half = max(sato, null).squareRoot() * ((t + rho) * (log((t + rho) / rho) + 2 * log(1 / alpha))).squareRoot() / t.squareRoot()
        let anytime = try #require(effect.anytimeValid)
        #expect(abs(anytime.ci95.lower - (d - half)) < 1e-6 && abs(anytime.ci95.upper - (d + half)) < 1e-6,
                "\(anytime.ci95) against \(d - half)…\(d + half) (sato \(sato), null \(null))")
        #expect(anytime.ci95.lower < ci.lower && anytime.ci95.upper > ci.upper, "wider than the one-look interval")
        #expect(anytime.decidedOn == nil && anytime.ci95.contains(0))
    }

    /// Once a look excludes zero, that day is the decision day, and later looks do not move it.
    @Test func theFirstDayTheIntervalExcludedZero() throws {
        let day = (Self.arm(9_000, 900), Self.arm(1_000, 50)) // 10% against 5%
        let effect = HoldoutEffect(Self.counts(Array(repeating: day, count: 6)))
        let decided = try #require(effect.anytimeValid?.decidedOn)
        // Recompute each look's lower bound here; the first positive one names the day.
        let alpha = 0.05, rho = 2_500 / (2 * log(1 / alpha) + log(1 + 2 * log(1 / alpha)))
        var expected: String?
        for k in 1...6 where expected == nil {
            let n1 = 9_000.0 * Double(k), n2 = 1_000.0 * Double(k), t = n1 * n2 / (n1 + n2)
            let p = (900.0 * Double(k) + 50 * Double(k)) / (n1 + n2)
            let v = max(Self.satoVariance(x1: 900 * Double(k), n1: n1, x2: 50 * Double(k), n2: n2),
                        p * (1 - p) * (1 / n1 + 1 / n2) * (n1 + n2) / (n1 + n2 - 1))
            let half = v.squareRoot() * ((t + rho) * (log((t + rho) / rho) + 2 * log(1 / alpha))).squareRoot() / t.squareRoot()
            if 0.05 - half > 0 { expected = String(format: "2026-12-%02d", k) }
        }
        #expect(decided == expected)
    }

    /// 52/48 logged where 50/50 was intended, 20,000 devices: the split is flagged and every
    /// estimate withheld with the reason.
    @Test func aMismatchWithholdsEveryEstimate() throws {
        let days = (0..<30).map { _ in (Self.arm(347, 20), Self.arm(320, 10)) } // 10,410 against 9,600
        let effect = HoldoutEffect(Self.counts(days, share: 0.5))
        #expect(effect.srm.mismatch)
        #expect(try #require(effect.srm.pValue) < 0.001 && (try #require(effect.srm.sequentialPValue)) < 0.001)
        #expect(effect.withheld?.hasPrefix("sample ratio mismatch: 0.4798 of the devices were held out where 0.5000 was intended") == true,
                "\(effect.withheld ?? "nil")")
        #expect(effect.difference == nil && effect.ci95 == nil && effect.anytimeValid == nil && effect.valuePerDevice == nil)
        #expect(effect.treated.rate != nil, "the arms' own counts stay")
    }

    @Test func differentStatedSharesOrTooFewDevicesWithhold() {
        let two = HoldoutEffect(Self.counts([(Self.arm(900, 50), Self.arm(100, 5))], shares: [0.1, 0.2]))
        #expect(two.withheld == "the assignments state different holdout shares (0.1, 0.2): the split cannot be checked")
        #expect(two.srm.expectedShare == nil && !two.srm.mismatch && two.difference == nil)
        let small = HoldoutEffect(Self.counts([(Self.arm(500, 50), Self.arm(60, 5))]))
        #expect(small.withheld == "fewer than 100 devices assigned in an arm (treated 500, held out 60)")
    }

    /// G₁ = m₃/m₂^{3/2} of every assigned device's value (zeros included), written out, and the
    /// least n above 28 + 25·G₁² (Sugden, Smith & Jones 2000).
    static func rule(_ values: [Double], devices: Int) -> (skewness: Double, needed: Int) {
        let n = Double(devices), mean = values.reduce(0, +) / n
        let zeros = Double(devices - values.count)
        let m2 = (values.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } + zeros * mean * mean) / n
        let m3 = (values.reduce(0) { $0 + pow($1 - mean, 3) } - zeros * pow(mean, 3)) / n
        let g1 = m3 / pow(m2, 1.5)
        return (g1, Int((28 + 25 * g1 * g1).rounded(.down)) + 1)
    }

    /// Value per assigned device: the arms' means over every assigned device (zeros included) and
    /// the MOVER interval, shown because the held-out arm's 400 devices are more than the rule
    /// asks for values this mildly skewed (half the devices buy, at 10, 20 or 60).
    @Test func valuePerAssignedDevice() throws {
        let treatedValues: [Decimal] = (0..<1_800).map { [10, 20, 60][$0 % 3] }
        let heldValues: [Decimal] = (0..<150).map { [10, 20, 60][$0 % 3] }
        let effect = HoldoutEffect(Self.counts([(Self.arm(3_600, 1_800, values: treatedValues), Self.arm(400, 150, values: heldValues))]))
        let value = try #require(effect.valuePerDevice)
        #expect(abs(value.treated - 30.0 * 1_800 / 3_600) < 1e-12 && abs(value.heldOut - 30.0 * 150 / 400) < 1e-12)
        #expect(abs(value.difference - (15 - 11.25)) < 1e-12)
        let rule = Self.rule((treatedValues + heldValues).map { NSDecimalNumber(decimal: $0).doubleValue }, devices: 4_000)
        #expect(abs(value.skewness - rule.skewness) < 1e-9 && value.devicesNeeded == rule.needed && rule.needed < 400, "\(rule)")
        #expect(value.withheld == nil)
        let ci = try #require(value.ci95)
        #expect(ci.lower < value.difference && value.difference < ci.upper)
    }

    /// Few buyers, one arm with large purchases: the held-out arm's 400 devices are fewer than
    /// values this skewed need, so the interval is withheld with the reason; the means stay.
    @Test func skewedValuesInASmallArmWithholdTheInterval() throws {
        let treatedValues: [Decimal] = (0..<60).map { Decimal($0 % 7 == 0 ? 250 : 12) }
        let heldValues: [Decimal] = (0..<5).map { _ in Decimal(12) }
        let effect = HoldoutEffect(Self.counts([(Self.arm(3_600, 60, values: treatedValues), Self.arm(400, 5, values: heldValues))]))
        #expect(effect.withheld == nil, "the conversion rate's estimates are shown")
        let value = try #require(effect.valuePerDevice)
        let treatedMean = NSDecimalNumber(decimal: treatedValues.reduce(0, +)).doubleValue / 3_600
        #expect(abs(value.treated - treatedMean) < 1e-12 && abs(value.heldOut - 60.0 / 400) < 1e-12)
        let rule = Self.rule((treatedValues + heldValues).map { NSDecimalNumber(decimal: $0).doubleValue }, devices: 4_000)
        #expect(abs(value.skewness - rule.skewness) < 1e-9 && value.devicesNeeded == rule.needed && rule.needed > 400, "\(rule)")
        #expect(value.ci95 == nil)
        #expect(value.withheld == "the held-out arm has 400 devices; values as skewed as these (G1 \(String(format: "%.1f", rule.skewness)), "
                + "both arms together) need at least \(rule.needed) devices in each arm for the 95% interval to cover "
                + "(n > 28 + 25·G1²: Cochran's rule, as Sugden, Smith & Jones 2000 refine it)", "\(value.withheld ?? "nil")")
    }

    /// Over campaigns, stratified: Σ w·d / Σ w with w = n1·n2/(n1 + n2) (Mantel–Haenszel risk
    /// difference), never the pooled arms. Two campaigns whose pooled difference has the wrong sign.
    @Test func combinedOverCampaignsIsStratified() throws {
        var a = HoldoutEffect(Self.counts([(Self.arm(9_000, 1_800), Self.arm(1_000, 150))], share: 0.1)) // 20% vs 15%
        a.campaign = "a"
        var b = HoldoutEffect(Self.counts([(Self.arm(1_000, 60), Self.arm(1_000, 40))], share: 0.5))      // 6% vs 4%
        b.campaign = "b"
        let combined = try #require(HoldoutCombined([a, b]))
        let w1 = 9_000.0 * 1_000 / 10_000, w2 = 1_000.0 * 1_000 / 2_000
        #expect(abs(combined.difference - (w1 * 0.05 + w2 * 0.02) / (w1 + w2)) < 1e-12)
        #expect(combined.campaigns == ["a", "b"] && combined.ci95.contains(combined.difference))
        let pooled = 1_860.0 / 10_000 - 190.0 / 2_000
        #expect(abs(combined.difference - pooled) > 0.05, "the pooled arms mix a 90/10 and a 50/50 split")
        #expect(HoldoutCombined([a]) == nil, "one campaign is its own estimate")
    }
}
