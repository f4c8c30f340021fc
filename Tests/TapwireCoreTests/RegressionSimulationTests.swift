import Foundation
import TapwireStatistics
import Testing
@testable import TapwireCore

/// The regression rule's error rate and power, measured by simulation (docs/regressions.md,
/// "Simulation" and "Power"). Every comparison is seeded, so the figures are the same on every
/// run: the assertions hold on a deterministic outcome and cannot fail by chance.
@Suite("Release regressions: A/A simulation and power", .serialized)
struct RegressionSimulationTests {
    static let comparisons = 1_000
    static let seed: UInt64 = 20_260_105

    private func percent(_ x: Double) -> String { String(format: "%.2f%%", x * 100) }

    /// At least 1,000 A/A comparisons, hourly looks for 14 days, five series each, the
    /// candidate adopted mostly on iPadOS: the chance that any series of a comparison ever alarms
    /// must be at most 5%. Asserted on the interval's upper end, not only its estimate; both with
    /// the default minimum drop and testing against zero (the boundary's own error).
    @Test func aaFalseAlarmRateStaysBelowFivePercent() {
        let drops = [("default (10% minimum drop)", RegressionConfiguration.default.minimumRelativeDrop),
                     ("tested against zero (no minimum drop)", 0.0)]
        let results = RegressionSimulation.falseAlarms(comparisons: Self.comparisons, seed: Self.seed, minimumRelativeDrops: drops.map(\.1))
        for ((name, _), result) in zip(drops, results) {
            print("A/A, \(name): \(result.withFinding) of \(result.comparisons) comparisons raised a finding "
                  + "(\(result.flaggedSeries) series; \(result.seriesPerComparison) per comparison): false-alarm rate "
                  + "\(percent(result.rate)), Wilson 95% [\(percent(result.ci95.lower)), \(percent(result.ci95.upper))]")
            #expect(result.comparisons >= 1_000)
            #expect(result.seriesPerComparison == 5)
            #expect(result.ci95.upper <= 0.05, "\(name): the false-alarm rate's interval reaches above 5%")
        }
        #expect(results[0].withFinding <= results[1].withFinding, "a minimum drop can only remove findings")
    }

    /// The same data with what the rule replaces: a pooled (unstratified) fixed-horizon z-test at
    /// 5% per series, looked at every hour. It alarms in most comparisons, so the simulation can
    /// tell a broken method from a sound one.
    @Test func peekingAtAPooledFixedHorizonTestAlarmsOften() {
        let count = 200
        var alarms = 0
        for i in 0..<count {
            let comparison = RegressionSimulation.aaComparison(seed: Self.seed &+ UInt64(i))
            if Self.naivePeekingAlarm(comparison) { alarms += 1 }
        }
        let rate = Double(alarms) / Double(count)
        print("A/A, pooled fixed-horizon 95% test at every hour (what the rule replaces): \(alarms) of \(count) comparisons alarmed (\(percent(rate)))")
        #expect(rate > 0.5)
    }

    /// Any series whose pooled two-proportion z-test (candidate below baseline, p < 0.05) fires
    /// at any hour with 100 deliveries a side, over the hours both delivered.
    static func naivePeekingAlarm(_ comparison: RegressionSimulation.Comparison) -> Bool {
        let series: [(RegressionRow) -> Int] = [{ $0.opens }, { $0.actions["reply"] ?? 0 }, { $0.actions["like"] ?? 0 },
                                                { $0.textReplies }, { $0.dismissals }]
        for count in series {
            var hours: [Int64: (x1: Int, n1: Int, x2: Int, n2: Int)] = [:]
            for row in comparison.rows {
                var cell = hours[row.hour] ?? (0, 0, 0, 0)
                if row.appVersion == "1.1" {
                    cell.x1 += count(row)
                    cell.n1 += row.delivered
                } else {
                    cell.x2 += count(row)
                    cell.n2 += row.delivered
                }
                hours[row.hour] = cell
            }
            var x1 = 0, n1 = 0, x2 = 0, n2 = 0
            for hour in hours.keys.sorted() {
                let c = hours[hour]!
                guard c.n1 > 0, c.n2 > 0 else { continue }
                x1 += c.x1; n1 += c.n1; x2 += c.x2; n2 += c.n2
                guard n1 >= 100, n2 >= 100, let z = ProportionStatistics.zStatistic(x1: x1, n1: n1, x2: x2, n2: n2) else { continue }
                if z < 0, ProportionStatistics.twoSidedNormalPValue(z) < 0.05 { return true }
            }
        }
        return false
    }

    /// The power table: detection delay in hours and deliveries for a 10% rate falling
    /// to 5% and to 8%, at 500 and 2,000 deliveries a day per version, for one category's four
    /// series and for an app of 80 series (20 categories × 4), with the default configuration.
    @Test func powerTable() {
        let replications = 40
        print("Detection delay, default configuration, \(replications) replications each (median and 90th percentile):")
        print("  rate      per day/version  series  detected            hours         candidate deliveries")
        var delays: [String: RegressionSimulation.DetectionDelay] = [:]
        func show(_ x: Double?) -> String { x.map { String(Int($0.rounded())) } ?? "–" }
        func pad(_ s: String, _ width: Int) -> String { s + String(repeating: " ", count: max(1, width - s.count)) }
        for scenario in RegressionSimulation.powerTable {
            for delay in RegressionSimulation.detectionDelay(scenario, replications: replications, seed: Self.seed, familySizes: [4, 80]) {
                delays["\(scenario.candidateRate) \(Int(scenario.deliveriesPerDayPerVersion)) \(delay.familySize)"] = delay
                print("  " + pad("10%→\(Int(scenario.candidateRate * 100))%", 10) + pad(String(Int(scenario.deliveriesPerDayPerVersion)), 17)
                      + pad(String(delay.familySize), 8) + pad("\(delay.detected)/\(delay.replications) in \(scenario.horizonDays) d", 20)
                      + pad("\(show(delay.medianHours)), \(show(delay.p90Hours))", 14)
                      + "\(show(delay.medianDeliveries)), \(show(delay.p90Deliveries))"
                      + (delay.otherSeriesFlagged > 0 ? "   (another series flagged in \(delay.otherSeriesFlagged))" : ""))
            }
        }
        // A halving is caught in every replication, within days at either volume.
        for volume in [500, 2_000] {
            let delay = delays["0.05 \(volume) 4"]!
            #expect(delay.detected == replications, "10%→5% at \(volume)/day: \(delay.detected) detected")
            #expect((delay.medianHours ?? .infinity) < 24 * 7)
        }
        // Four times the volume is faster; a halving is faster than a fifth off; a larger family is slower.
        for (fall, family) in [(0.05, 4), (0.08, 4), (0.05, 80), (0.08, 80)] {
            #expect((delays["\(fall) 2000 \(family)"]!.medianHours ?? .infinity) < (delays["\(fall) 500 \(family)"]!.medianHours ?? .infinity))
        }
        for volume in [500, 2_000] {
            #expect((delays["0.05 \(volume) 4"]!.medianHours ?? .infinity) < (delays["0.08 \(volume) 4"]!.medianHours ?? .infinity))
            #expect((delays["0.05 \(volume) 4"]!.medianHours ?? .infinity) <= (delays["0.05 \(volume) 80"]!.medianHours ?? .infinity))
        }
    }
}
