import Foundation
@testable import TapwireStatistics
import Testing
import TapwireStatisticsOracle

/// Days of rich vs text-only strata: two campaigns × two platforms, rich sent mostly in the
/// low-rate campaign, `lift` added to rich's rate, seeded.
private func days(_ count: Int, lift: Double, perDay: Int, seed: UInt64) -> [DailyStrata] {
    var rng = SeededGenerator(seed: seed)
    let strata: [(key: Int, textRate: Double, richShare: Double)] = [
        (0, 0.20, 0.2), (1, 0.12, 0.3), (2, 0.06, 0.8), (3, 0.04, 0.7), // sale and digest campaigns × iOS and iPadOS
    ]
    return (0..<count).map { d in
        var day: [Int: StratumCounts] = [:]
        for s in strata {
            let n = perDay / strata.count
            let n1 = Sampling.binomial(n, s.richShare, &rng), n2 = n - n1
            day[s.key] = StratumCounts(x1: Sampling.binomial(n1, s.textRate + lift, &rng), n1: n1,
                                       x2: Sampling.binomial(n2, s.textRate, &rng), n2: n2)
        }
        return DailyStrata(day: String(format: "2026-01-%02d", d + 1), strata: day)
    }
}

@Suite("Rich vs text-only: the anytime-valid adjusted difference")
struct AnytimeUpliftTests {
    /// Every day's figures equal Tests/Statistics/confidence_sequence.py's, and so does the day decided.
    @Test(arguments: [(0.03, UInt64(1)), (0.0, UInt64(2)), (-0.02, UInt64(3))])
    func equalsIndependentRecomputation(lift: Double, seed: UInt64) throws {
        let input = days(30, lift: lift, perDay: 800, seed: seed)
        let uplift = AnytimeUplift.evaluate(days: input)
        let reference = try StatisticsOracle.run([
            "mode": "uplift", "alpha": 0.05, "tuning": AnytimeUplift.defaultTuning, "perSide": 100, "expected": 5,
            "days": input.map { ["day": $0.day, "strata": Dictionary(uniqueKeysWithValues: $0.strata.map { (String($0.key), [$0.value.x1, $0.value.n1, $0.value.x2, $0.value.n2]) })] as [String: Any] },
        ])
        let expected = try #require(reference["days"] as? [[String: Any]])
        try #require(expected.count == uplift.days.count)
        for (day, r) in zip(uplift.days, expected) {
            let e = try #require(day.estimate)
            #expect(StatisticsOracle.close(e.difference, r["difference"]), "\(day.day): difference")
            #expect(StatisticsOracle.close(e.anytimeValid.lower, r["lower"]), "\(day.day): lower")
            #expect(StatisticsOracle.close(e.anytimeValid.upper, r["upper"]), "\(day.day): upper")
            #expect((day.withheld != nil) == (r["withheld"] as? Bool), "\(day.day): withheld")
        }
        #expect(uplift.decidedOn == reference["decidedOn"] as? String)
        if lift > 0 { #expect(uplift.decidedOn != nil, "a 3 pp lift over 30 days of 800 is decided") }
    }

    /// The anytime-valid interval contains the fixed-horizon one, and is the same Mantel–Haenszel
    /// estimate the report shows over every day's strata.
    @Test func widerThanFixedAndSameEstimateAsTheReport() throws {
        let input = days(14, lift: 0.02, perDay: 2_000, seed: 9)
        let uplift = AnytimeUplift.evaluate(days: input)
        for day in uplift.days {
            let e = try #require(day.estimate)
            #expect(e.anytimeValid.lower < e.fixedHorizon95.lower && e.anytimeValid.upper > e.fixedHorizon95.upper)
        }
        let strata = input.flatMap { day in day.strata.keys.sorted().map { day.strata[$0]! } }
        let report = try #require(MantelHaenszelRiskDifference.estimate(strata))
        let last = try #require(uplift.latest?.estimate)
        #expect(abs(last.difference - report.difference) < 1e-12 && abs(last.fixedHorizon95.lower - report.ci95.lower) < 1e-12)
        #expect(last.pooledDifference < last.difference, "rich went mostly to the low-rate campaign")
    }

    /// No decision before there is data, and none on a withheld day. A stratum is one day's:
    /// rich on one day and text-only on the next are two one-sided strata, not one comparison.
    @Test func earlyAndOneSidedDays() {
        let onlyRich = DailyStrata(day: "2026-01-01", strata: [0: StratumCounts(x1: 50, n1: 100, x2: 0, n2: 0)])
        let onlyText = DailyStrata(day: "2026-01-02", strata: [0: StratumCounts(x1: 1, n1: 0, x2: 1, n2: 40)])
        let tiny = DailyStrata(day: "2026-01-03", strata: [0: StratumCounts(x1: 1, n1: 10, x2: 1, n2: 40)])
        let uplift = AnytimeUplift.evaluate(days: [onlyRich, onlyText, tiny])
        #expect(uplift.days[0].estimate == nil && uplift.days[0].withheld != nil)
        #expect(uplift.days[1].estimate == nil, "a rich-only day and a text-only day are not one stratum")
        #expect(uplift.days[2].estimate != nil && uplift.days[2].withheld?.contains("fewer than 100") == true)
        #expect(uplift.decidedOn == nil && !uplift.days[2].excludesZero)
    }

    /// A team opening the report every morning for 60 days, with no real difference: a
    /// fixed-horizon 95% interval read each day "decides" far more often than 5%; the
    /// anytime-valid one at most 5% (500 seeded histories).
    @Test func dailyPeekingIsSafe() {
        var anytime = 0, fixed = 0
        let histories = 500
        for seed in 0..<UInt64(histories) {
            let uplift = AnytimeUplift.evaluate(days: days(60, lift: 0, perDay: 400, seed: 1_000 + seed))
            if uplift.decidedOn != nil { anytime += 1 }
            if uplift.days.contains(where: { day in
                guard day.withheld == nil, let ci = day.estimate?.fixedHorizon95 else { return false }
                return ci.lower > 0 || ci.upper < 0
            }) { fixed += 1 }
        }
        print("Rich vs text-only, no real difference, read daily for 60 days (\(histories) histories): anytime-valid decided in \(anytime), "
              + "fixed-horizon 95% in \(fixed)")
        #expect(ProportionStatistics.wilson(successes: anytime, trials: histories)!.upper <= 0.05)
        #expect(Double(fixed) / Double(histories) > 0.15)
    }
}
