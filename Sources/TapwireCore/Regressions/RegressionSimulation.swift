import Dispatch
import Foundation
import Synchronization
import TapwireStatistics

/// Simulated release comparisons for the regression rule: A/A comparisons (no real change) to
/// measure its false-alarm rate, and broken releases to measure how long it takes to notice.
/// Seeded, so a given seed always gives the same data and the same figures; reusable by the
/// tests and by `tapwire-bench` (docs/regressions.md, "Simulation" and "Power").
public enum RegressionSimulation {
    /// A platform: its share of each side's deliveries and how its rates compare (iPadOS users
    /// engage less with every notification, so a version adopted mostly there must not look broken).
    public struct Platform: Sendable, Equatable {
        public var name: String
        public var rateFactor: Double
        public var baselineShare: Double
        public var candidateShare: Double

        public init(name: String, rateFactor: Double, baselineShare: Double, candidateShare: Double) {
            self.name = name
            self.rateFactor = rateFactor
            self.baselineShare = baselineShare
            self.candidateShare = candidateShare
        }
    }

    /// The candidate adopted mostly on iPadOS, where every rate is about half of iPhone's.
    public static let skewedPlatforms = [
        Platform(name: "iOS", rateFactor: 1.0, baselineShare: 0.75, candidateShare: 0.30),
        Platform(name: "iPadOS", rateFactor: 0.55, baselineShare: 0.15, candidateShare: 0.65),
        Platform(name: "watchOS", rateFactor: 0.8, baselineShare: 0.10, candidateShare: 0.05),
    ]

    /// The same mix on both sides and the same rates everywhere (the power scenarios' "10%").
    public static let evenPlatforms = [
        Platform(name: "iOS", rateFactor: 1.0, baselineShare: 0.75, candidateShare: 0.75),
        Platform(name: "iPadOS", rateFactor: 1.0, baselineShare: 0.15, candidateShare: 0.15),
        Platform(name: "watchOS", rateFactor: 1.0, baselineShare: 0.10, candidateShare: 0.10),
    ]

    /// One simulated comparison: the rows the store would hand the rule, the manifests, and the
    /// instant to evaluate at.
    public struct Comparison: Sendable {
        public var rows: [RegressionRow]
        public var manifests: [String: Manifest]
        public var release: Int64
        public var asOf: Int64
    }

    // MARK: - A/A

    /// The A/A comparisons: one category with five series (opens, a text-input Reply and its
    /// text replies, a rarer Like, dismissals under customDismissAction), 14 days of hourly looks
    /// from the release. The baseline is two versions (1.0, and 0.9 on the iPhones that cannot
    /// update); the candidate 1.1 is adopted along an S-curve that differs by comparison, mostly
    /// on iPadOS. Volume, adoption speed and ceiling differ by comparison; rates move by day (for
    /// everyone alike), by platform and day, and by hour of day. Nothing differs between versions.
    public struct AAScenario: Sendable {
        public var days = 14
        /// Deliveries per day over every version: log-uniform in this range.
        public var deliveriesPerDay: ClosedRange<Double> = 1_500...12_000
        public var platforms = skewedPlatforms
        /// Standard deviation of the log of a day's rate factor (everyone alike).
        public var dayToDay = 0.15
        /// Standard deviation of the log of a platform-day's own factor.
        public var platformDay = 0.05
        /// Amplitude of the hour-of-day swing in rates (±).
        public var diurnalRate = 0.25

        public init() {}
    }

    public static let aaManifests: [String: Manifest] = {
        let categories = [
            ManifestCategory(identifier: "message", options: ["customDismissAction"],
                             actions: [ManifestAction(identifier: "reply", textInput: true), ManifestAction(identifier: "like")]),
        ]
        return Dictionary(uniqueKeysWithValues: ["0.9", "1.0", "1.1"].map { ($0, Manifest(appVersion: $0, categories: categories)) })
    }()

    /// 2026-01-05 17:00 UTC, a Monday evening: the release.
    public static let releaseInstant: Int64 = 1_767_632_400_000_000

    /// One A/A comparison, from its seed.
    public static func aaComparison(seed: UInt64, scenario: AAScenario = AAScenario()) -> Comparison {
        var rng = SeededGenerator(seed: seed)
        let hour = RollupDeltas.microsecondsPerHour
        let ceiling = Sampling.uniform(0.4...0.85, &rng), midpoint = Sampling.uniform(18...110, &rng), spread = Sampling.uniform(6...30, &rng)
        let volume = exp(Sampling.uniform(log(scenario.deliveriesPerDay.lowerBound)...log(scenario.deliveriesPerDay.upperBound), &rng))
        // The rate of each response (they exclude one another: one response per notification).
        let outcomes: [(RegressionOutcomeKey, Double)] = [(.opens, 0.11), (.action("reply"), 0.04), (.action("like"), 0.015),
                                                          (.dismissals, 0.14)]
        let hours = scenario.days * 24
        var dayFactor = 1.0, platformDayFactors = scenario.platforms.map { _ in 1.0 }
        var rows: [RegressionRow] = []
        rows.reserveCapacity(hours * 3 * scenario.platforms.count)
        for h in 0..<hours {
            let instant = releaseInstant + Int64(h) * hour
            let hourOfDay = Int((instant / hour) % 24)
            if h == 0 || hourOfDay == 0 {
                dayFactor = exp(scenario.dayToDay * Sampling.normal(&rng))
                platformDayFactors = scenario.platforms.map { _ in exp(scenario.platformDay * Sampling.normal(&rng)) }
            }
            let share = ceiling / (1 + exp(-(Double(h) - midpoint) / spread))
            let volumeShape = 1 + 0.6 * sin(2 * Double.pi * Double(hourOfDay - 9) / 24)
            let rateShape = 1 + scenario.diurnalRate * sin(2 * Double.pi * Double(hourOfDay - 15) / 24)
            let perHour = volume / 24 * volumeShape
            for (p, platform) in scenario.platforms.enumerated() {
                let factor = platform.rateFactor * dayFactor * platformDayFactors[p] * rateShape
                let rates = outcomes.map { ($0.0, $0.1 * factor) }
                // 0.9's stragglers are old iPhones that cannot update: a fifth of the baseline's iOS deliveries.
                let straggling = platform.name == "iOS" ? 0.2 : 0
                let sides: [(String, Double)] = [("1.1", share * platform.candidateShare),
                                                 ("1.0", (1 - share) * (1 - straggling) * platform.baselineShare),
                                                 ("0.9", (1 - share) * straggling * platform.baselineShare)]
                for (version, weight) in sides {
                    let delivered = Sampling.poisson(perHour * weight, &rng)
                    guard delivered > 0 else { continue }
                    rows.append(row(category: "message", version: version, platform: platform.name, hour: instant,
                                    delivered: delivered, rates: rates, &rng))
                }
            }
        }
        return Comparison(rows: rows, manifests: aaManifests, release: releaseInstant, asOf: releaseInstant + Int64(hours) * hour)
    }

    /// The false-alarm rate over `comparisons` A/A comparisons seeded `seed`, `seed + 1`, …
    public struct FalseAlarms: Sendable, Equatable {
        public var comparisons: Int
        /// Comparisons in which any series was flagged.
        public var withFinding: Int
        /// Flagged series over all comparisons (a comparison may have several).
        public var flaggedSeries: Int
        public var seriesPerComparison: Int
        public var rate: Double { Double(withFinding) / Double(comparisons) }
        /// Wilson's 95% interval of the rate.
        public var ci95: ConfidenceInterval { ProportionStatistics.wilson(successes: withFinding, trials: comparisons)! }
    }

    /// Each comparison is simulated once and judged with `configuration` at each minimum drop
    /// in `minimumRelativeDrops`, in order. A finding needs the interval wholly below −drop, and
    /// the boundary does not depend on the drop, so a comparison without a finding at some drop
    /// has none at any larger one: only those with a finding are judged again (the same answer,
    /// for a fraction of the work).
    public static func falseAlarms(comparisons: Int, seed: UInt64, configuration: RegressionConfiguration = .default,
                                   minimumRelativeDrops: [Double], scenario: AAScenario = AAScenario()) -> [FalseAlarms] {
        let order = minimumRelativeDrops.indices.sorted { minimumRelativeDrops[$0] < minimumRelativeDrops[$1] }
        let rules = minimumRelativeDrops.map { drop in
            var c = configuration
            c.minimumRelativeDrop = drop
            return ReleaseRegressionRule(configuration: c)
        }
        let outcomes = parallelMap(count: comparisons) { i -> [(flagged: Int, series: Int)] in
            let comparison = aaComparison(seed: seed &+ UInt64(i), scenario: scenario)
            var judged = Array(repeating: (flagged: 0, series: 0), count: rules.count)
            var previous: (flagged: Int, series: Int)?
            for r in order {
                if let previous, previous.flagged == 0 {
                    judged[r] = previous
                    continue
                }
                guard case .comparison(let result) = rules[r].evaluate(rows: comparison.rows, manifests: comparison.manifests,
                                                                        asOf: comparison.asOf) else { continue }
                judged[r] = (result.findings.count, result.seriesInFamily)
                previous = judged[r]
            }
            return judged
        }
        return rules.indices.map { r in
            let judged = outcomes.map { $0[r] }
            return FalseAlarms(comparisons: comparisons, withFinding: judged.filter { $0.flagged > 0 }.count,
                               flaggedSeries: judged.reduce(0) { $0 + $1.flagged }, seriesPerComparison: judged.map(\.series).max() ?? 0)
        }
    }

    // MARK: - Power

    /// A broken release: from its first hour, one action's rate falls from `baselineRate` to
    /// `candidateRate`. Both versions deliver `deliveriesPerDayPerVersion` of the category a day
    /// (with the hour-of-day swing), on the same platforms at the same rates; rates move by day
    /// for everyone alike. The category has four series (opens, "accept", "decline",
    /// dismissals); "accept" is the one that breaks.
    public struct PowerScenario: Sendable, Equatable {
        public var baselineRate: Double
        public var candidateRate: Double
        public var deliveriesPerDayPerVersion: Double
        /// How long to wait before calling it undetected.
        public var horizonDays: Int
        public var dayToDay = 0.15

        public init(baselineRate: Double = 0.10, candidateRate: Double, deliveriesPerDayPerVersion: Double, horizonDays: Int) {
            self.baselineRate = baselineRate
            self.candidateRate = candidateRate
            self.deliveriesPerDayPerVersion = deliveriesPerDayPerVersion
            self.horizonDays = horizonDays
        }
    }

    public static let powerManifests: [String: Manifest] = {
        let categories = [ManifestCategory(identifier: "invite", options: ["customDismissAction"],
                                           actions: [ManifestAction(identifier: "accept"), ManifestAction(identifier: "decline")])]
        return Dictionary(uniqueKeysWithValues: ["2.0", "2.1"].map { ($0, Manifest(appVersion: $0, categories: categories)) })
    }()

    /// The first `days` days of a broken release.
    public static func powerComparison(_ scenario: PowerScenario, seed: UInt64, days: Int) -> Comparison {
        var generator = PowerGenerator(scenario: scenario, seed: seed)
        generator.extend(toDays: days)
        return generator.comparison
    }

    /// A broken release generated day by day: extending it adds the next days, so a detection
    /// run can look further only when it has not flagged yet.
    struct PowerGenerator {
        let scenario: PowerScenario
        var rng: SeededGenerator
        var rows: [RegressionRow] = []
        var hours = 0
        var dayFactor = 1.0

        init(scenario: PowerScenario, seed: UInt64) {
            self.scenario = scenario
            rng = SeededGenerator(seed: seed)
        }

        var comparison: Comparison {
            Comparison(rows: rows, manifests: powerManifests, release: releaseInstant,
                       asOf: releaseInstant + Int64(hours) * RollupDeltas.microsecondsPerHour)
        }

        mutating func extend(toDays days: Int) {
            let hour = RollupDeltas.microsecondsPerHour
            while hours < days * 24 {
                let h = hours
                if h % 24 == 0 { dayFactor = exp(scenario.dayToDay * Sampling.normal(&rng)) }
                let instant = releaseInstant + Int64(h) * hour
                let hourOfDay = Int((instant / hour) % 24)
                let volumeShape = 1 + 0.6 * sin(2 * Double.pi * Double(hourOfDay - 9) / 24)
                for platform in evenPlatforms {
                    for (version, accept) in [("2.1", scenario.candidateRate), ("2.0", scenario.baselineRate)] {
                        let delivered = Sampling.poisson(scenario.deliveriesPerDayPerVersion / 24 * volumeShape * platform.baselineShare, &rng)
                        guard delivered > 0 else { continue }
                        let f = dayFactor
                        let rates: [(RegressionOutcomeKey, Double)] = [(.opens, 0.15 * f), (.action("accept"), accept * f),
                                                                       (.action("decline"), 0.03 * f), (.dismissals, 0.12 * f)]
                        rows.append(row(category: "invite", version: version, platform: platform.name, hour: instant,
                                        delivered: delivered, rates: rates, &rng))
                    }
                }
                hours += 1
            }
        }
    }

    /// How long the broken action took to be flagged, over the replications that were.
    public struct DetectionDelay: Sendable, Equatable {
        public var scenario: PowerScenario
        /// Series the family's alpha was split over.
        public var familySize: Int
        public var replications: Int
        public var detected: Int
        /// Hours from the release to the look that flagged it: median and 90th percentile (nearest
        /// rank) over the detected replications; nil when none was.
        public var medianHours: Double?
        public var p90Hours: Double?
        /// The candidate's deliveries of the category by then (in the hours both versions delivered).
        public var medianDeliveries: Double?
        public var p90Deliveries: Double?
        /// Replications in which another series was flagged (a false alarm beside the real one).
        public var otherSeriesFlagged: Int
    }

    /// Each replication is judged once per family size in `familySizes`: the alpha per series of
    /// an app with m series is familyAlpha / m, so this category's four series with the family's
    /// alpha × 4/m behave as four of m. A replication is simulated for 14 days, then, while not
    /// yet flagged in every family, for twice as long, up to the horizon (a flag's look is the
    /// same whatever the horizon: the data are the start of the longer run, and each look uses
    /// only the hours before it).
    public static func detectionDelay(_ scenario: PowerScenario, replications: Int, seed: UInt64, familySizes: [Int],
                                      configuration: RegressionConfiguration = .default) -> [DetectionDelay] {
        let seriesHere = 4.0
        let rules = familySizes.map { m in
            var scaled = configuration
            scaled.familyAlpha *= seriesHere / Double(m)
            return ReleaseRegressionRule(configuration: scaled)
        }
        typealias Outcome = (hours: Double?, deliveries: Double?, other: Bool)
        let outcomes = parallelMap(count: replications) { i -> [Outcome] in
            var judged: [Outcome?] = Array(repeating: nil, count: rules.count)
            var generator = PowerGenerator(scenario: scenario, seed: seed &+ UInt64(i))
            var days = min(14, scenario.horizonDays)
            while true {
                generator.extend(toDays: days)
                let comparison = generator.comparison
                for (r, rule) in rules.enumerated() where judged[r] == nil {
                    guard case .comparison(let result) = rule.evaluate(rows: comparison.rows, manifests: comparison.manifests,
                                                                        asOf: comparison.asOf) else { continue }
                    let other = result.findings.contains { $0.outcome != .action("accept") }
                    if let finding = result.findings.first(where: { $0.outcome == .action("accept") }) {
                        judged[r] = (Double(finding.detectedAt - comparison.release) / Double(RollupDeltas.microsecondsPerHour),
                                     Double(finding.atDetection.candidate.delivered), other)
                    } else if days == scenario.horizonDays {
                        judged[r] = (nil, nil, other)
                    }
                }
                if judged.allSatisfy({ $0 != nil }) { return judged.map { $0! } }
                days = min(days * 2, scenario.horizonDays)
            }
        }
        return rules.indices.map { r in
            let judged = outcomes.map { $0[r] }
            let hours = judged.compactMap(\.hours).sorted(), deliveries = judged.compactMap(\.deliveries).sorted()
            func rank(_ values: [Double], _ q: Double) -> Double? {
                values.isEmpty ? nil : values[max(0, Int((q * Double(values.count)).rounded(.up)) - 1)]
            }
            return DetectionDelay(scenario: scenario, familySize: familySizes[r], replications: replications, detected: hours.count,
                                  medianHours: rank(hours, 0.5), p90Hours: rank(hours, 0.9),
                                  medianDeliveries: rank(deliveries, 0.5), p90Deliveries: rank(deliveries, 0.9),
                                  otherSeriesFlagged: judged.filter(\.other).count)
        }
    }

    /// The table: 10% falling to 5% and to 8%, at 500 and 2,000 deliveries a day per version.
    public static let powerTable: [PowerScenario] = [
        PowerScenario(candidateRate: 0.05, deliveriesPerDayPerVersion: 500, horizonDays: 56),
        PowerScenario(candidateRate: 0.05, deliveriesPerDayPerVersion: 2_000, horizonDays: 56),
        PowerScenario(candidateRate: 0.08, deliveriesPerDayPerVersion: 500, horizonDays: 224),
        PowerScenario(candidateRate: 0.08, deliveriesPerDayPerVersion: 2_000, horizonDays: 112),
    ]

    // MARK: - Sampling

    /// A response kind of the generator (text replies follow the "reply" action).
    enum RegressionOutcomeKey: Sendable {
        case opens, dismissals
        case action(String)
    }

    static func row(category: String, version: String, platform: String, hour: Int64, delivered: Int,
                    rates: [(RegressionOutcomeKey, Double)], _ rng: inout SeededGenerator) -> RegressionRow {
        var row = RegressionRow(category: category, appVersion: version, platform: platform, hour: hour, delivered: delivered)
        // Multinomial by successive binomials: each response excludes the others.
        var remaining = delivered, mass = 1.0
        for (outcome, rate) in rates {
            let x = remaining > 0 ? Sampling.binomial(remaining, min(1, rate / mass), &rng) : 0
            remaining -= x
            mass = max(1e-12, mass - rate)
            switch outcome {
            case .opens: row.opens = x
            case .dismissals: row.dismissals = x
            case .action(let identifier):
                row.actions[identifier] = x
                if identifier == "reply" { row.textReplies = Sampling.binomial(x, 0.97, &rng) }
            }
        }
        return row
    }

    /// `body(0..<count)` on every core, in order.
    static func parallelMap<T: Sendable>(count: Int, _ body: @Sendable (Int) -> T) -> [T] {
        let results = Mutex<[T?]>(Array(repeating: nil, count: count))
        let chunks = min(count, max(1, ProcessInfo.processInfo.activeProcessorCount) * 4)
        DispatchQueue.concurrentPerform(iterations: chunks) { chunk in
            var local: [(Int, T)] = []
            var i = chunk
            while i < count {
                local.append((i, body(i)))
                i += chunks
            }
            results.withLock { for (i, value) in local { $0[i] = value } }
        }
        return results.withLock { $0.map { $0! } }
    }
}
