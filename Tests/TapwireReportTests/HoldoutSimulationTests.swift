import Foundation
import TapwireStatistics
import Testing
@testable import TapwireReport

/// Issue 36's figures, from seeded simulations of holdout campaigns read once per UTC day through
/// `HoldoutEffect`, the code the report runs. Each day a campaign assigns devices, each held out
/// with the stated share, and each converts with its arm's rate within the day it was assigned (the
/// window's timing plays no part in what is measured here). Printed with Wilson 95% intervals;
/// docs/holdouts.md keeps the figures of the last run.
@Suite struct HoldoutSimulationTests {
    struct Campaign {
        var days: [HoldoutCounts.Day] = []
        var share: Double

        init(days count: Int, devicesPerDay: Int, share: Double, loggedShare: Double? = nil, treatedRate: Double, heldOutRate: Double,
             rng: inout SeededGenerator) {
            self.share = share
            for d in 0..<count {
                let held = Sampling.binomial(devicesPerDay, loggedShare ?? share, &rng)
                let treated = devicesPerDay - held
                days.append(HoldoutCounts.Day(day: String(format: "d%02d", d + 1),
                                              treated: .init(assigned: treated, converted: Sampling.binomial(treated, treatedRate, &rng)),
                                              heldOut: .init(assigned: held, converted: Sampling.binomial(held, heldOutRate, &rng))))
            }
        }

        /// The report as read on day `k` (1-based): every day up to it.
        func look(_ k: Int) -> HoldoutEffect {
            HoldoutEffect(HoldoutCounts(campaign: "sim", window: "1 day", statedShares: [share], days: Array(days.prefix(k))))
        }
    }

    static func wilson(_ hits: Int, _ trials: Int) -> String {
        let ci = ProportionStatistics.wilson(successes: hits, trials: trials)!
        return String(format: "%d of %d = %.4f [%.4f, %.4f]", hits, trials, Double(hits) / Double(trials), ci.lower, ci.upper)
    }

    /// 1,000 campaigns with a known effect (5% held out against 6% treated, half held out, 2,000
    /// devices a day, 30 daily looks): the fixed-horizon interval at the last look covers the true
    /// 1 pp in about 95%; the anytime-valid one covers it at every one of the 30 looks together in
    /// at least 95%.
    @Test func coverageOfBothIntervals() throws {
        var rng = SeededGenerator(seed: 3_601)
        let campaigns = 1_000, days = 30, truth = 0.01
        var fixedCovered = 0, anytimeEveryLook = 0, anytimeLast = 0
        for _ in 0..<campaigns {
            let c = Campaign(days: days, devicesPerDay: 2_000, share: 0.5, treatedRate: 0.06, heldOutRate: 0.05, rng: &rng)
            let last = c.look(days)
            if try #require(last.ci95).contains(truth) { fixedCovered += 1 }
            if try #require(last.anytimeValid).ci95.contains(truth) { anytimeLast += 1 }
            if (1...days).allSatisfy({ c.look($0).anytimeValid?.ci95.contains(truth) ?? true }) { anytimeEveryLook += 1 }
        }
        print("""
            Holdout coverage, \(campaigns) campaigns of 2,000 devices a day for \(days) days, 5% held out vs 6% treated (Wilson 95%):
              fixed-horizon 95% (Newcombe) at day \(days): \(Self.wilson(fixedCovered, campaigns))
              anytime-valid 95% at day \(days): \(Self.wilson(anytimeLast, campaigns))
              anytime-valid 95% at all \(days) daily looks at once: \(Self.wilson(anytimeEveryLook, campaigns))
            """)
        // Nominal within a point: Newcombe's interval is close to 95% at these rates (the seed's run: 0.937).
        let fixed = ProportionStatistics.wilson(successes: fixedCovered, trials: campaigns)!
        #expect(fixed.upper >= 0.94 && fixed.lower <= 0.96)
        #expect(ProportionStatistics.wilson(successes: anytimeEveryLook, trials: campaigns)!.upper >= 0.95)
        #expect(anytimeEveryLook <= anytimeLast)
    }

    /// A/A: 1,000 campaigns without effect (5% in both arms, 10% held out, 2,000 devices a day)
    /// read every day for 30 days: the share ever decided stays at most 5%, and the correct
    /// split is flagged in at most 1%.
    @Test func aaCampaignsReadDailyRarelyDecide() throws {
        var rng = SeededGenerator(seed: 3_602)
        let campaigns = 1_000, days = 30
        var decided = 0, flagged = 0, naiveEver = 0
        for _ in 0..<campaigns {
            let c = Campaign(days: days, devicesPerDay: 2_000, share: 0.1, treatedRate: 0.05, heldOutRate: 0.05, rng: &rng)
            let last = c.look(days)
            if last.srm.mismatch { flagged += 1 }
            if last.anytimeValid?.decidedOn != nil { decided += 1 }
            // Peeking at the fixed-horizon interval every day, for comparison.
            if (1...days).contains(where: { !(c.look($0).ci95?.contains(0) ?? true) }) { naiveEver += 1 }
        }
        print("""
            Holdout A/A, \(campaigns) campaigns of 2,000 devices a day (10% held out), read daily for \(days) days (Wilson 95%):
              anytime-valid interval ever excluded 0: \(Self.wilson(decided, campaigns))
              fixed-horizon interval ever excluded 0 (peeking): \(Self.wilson(naiveEver, campaigns))
              correct split flagged (sequential SRM, α = 0.001): \(Self.wilson(flagged, campaigns))
            """)
        #expect(ProportionStatistics.wilson(successes: decided, trials: campaigns)!.upper <= 0.05)
        #expect(ProportionStatistics.wilson(successes: flagged, trials: campaigns)!.upper <= 0.01)
        #expect(naiveEver > decided, "peeking at the fixed interval decides more often")
    }

    /// A broken split (50/50 stated, 52/48 logged, 20,000 devices over 30 days) is flagged, and
    /// every estimate of the campaign withheld.
    @Test func brokenSplitsAreFlagged() {
        var rng = SeededGenerator(seed: 3_603)
        let campaigns = 300
        var flagged = 0, withheld = 0
        for _ in 0..<campaigns {
            let c = Campaign(days: 30, devicesPerDay: 667, share: 0.5, loggedShare: 0.48, treatedRate: 0.05, heldOutRate: 0.05, rng: &rng)
            let last = c.look(30)
            if last.srm.mismatch { flagged += 1 }
            if last.srm.mismatch, last.difference == nil, last.withheld?.hasPrefix("sample ratio mismatch") == true { withheld += 1 }
        }
        print("Holdout broken split, 52/48 logged for 50/50 over 20,010 devices in 30 days: flagged \(Self.wilson(flagged, campaigns))")
        #expect(ProportionStatistics.wilson(successes: flagged, trials: campaigns)!.lower >= 0.8)
        #expect(withheld == flagged)
    }

    /// Power: the days until the anytime-valid interval excludes 0 for a 1 pp incremental
    /// conversion on a 5% base (10% held out), at 10,000 and 100,000 devices a day, over 200
    /// campaigns each read daily for up to 60 days.
    @Test func daysToDecideOnePoint() {
        var rng = SeededGenerator(seed: 3_604)
        var lines: [String] = []
        var medians: [Int: Int] = [:]
        for perDay in [10_000, 100_000] {
            let campaigns = 200, horizon = 60
            var days: [Int] = []
            for _ in 0..<campaigns {
                let c = Campaign(days: horizon, devicesPerDay: perDay, share: 0.1, treatedRate: 0.06, heldOutRate: 0.05, rng: &rng)
                let decided = c.look(horizon).anytimeValid?.decidedOn.flatMap { Int($0.dropFirst()) }
                days.append(decided ?? Int.max)
            }
            days.sort()
            let within = days.filter { $0 <= horizon }.count
            let median = days[campaigns / 2], p90 = days[campaigns * 9 / 10]
            medians[perDay] = median
            lines.append(String(format: "  %7d devices a day: median %@, 90th percentile %@; decided within %d days: %@", perDay,
                                median <= horizon ? "day \(median)" : "beyond \(horizon)", p90 <= horizon ? "day \(p90)" : "beyond \(horizon)",
                                horizon, Self.wilson(within, campaigns)))
        }
        print("Holdout power, 1 pp on a 5% base, 10% held out, read daily (anytime-valid 95%):\n" + lines.joined(separator: "\n"))
        #expect((medians[100_000] ?? .max) < (medians[10_000] ?? .max))
        #expect((medians[10_000] ?? .max) <= 60)
    }
}
