import Foundation
import TapwireStatistics
import Testing
@testable import TapwireCore
import TapwireStatisticsOracle

/// 2026-01-05 00:00 UTC, a Monday: hour 0 of every hand-built comparison.
private let t0: Int64 = 1_767_571_200_000_000
private let hour = RollupDeltas.microsecondsPerHour

private func at(_ h: Int) -> Int64 { t0 + Int64(h) * hour }

/// The same counts every hour of `hours`.
private func hourly(_ version: String, _ hours: Range<Int>, category: String = "message", platform: String = "iOS",
                    segment: String = "", delivered: Int, opens: Int = 0, dismissals: Int = 0, replies: Int = 0,
                    actions: [String: Int] = [:]) -> [RegressionRow] {
    hours.map {
        RegressionRow(category: category, appVersion: version, platform: platform, segment: segment, hour: at($0),
                      delivered: delivered, opens: opens, dismissals: dismissals, textReplies: replies, actions: actions)
    }
}

private func manifest(_ version: String, _ categories: [ManifestCategory]) -> (String, Manifest) {
    (version, Manifest(appVersion: version, categories: categories))
}

private let message = ManifestCategory(identifier: "message", actions: [ManifestAction(identifier: "reply"), ManifestAction(identifier: "like")])

private func comparison(_ evaluation: RegressionEvaluation, sourceLocation: SourceLocation = #_sourceLocation) throws -> RegressionComparison {
    guard case .comparison(let c) = evaluation else {
        Issue.record("no comparison: \(evaluation)", sourceLocation: sourceLocation)
        throw CancellationError()
    }
    return c
}

private func decision(_ c: RegressionComparison, _ category: String, _ outcome: RegressionOutcome) -> RegressionDecision? {
    c.results.first { $0.category == category && $0.outcome == outcome }?.decision
}

private func finding(_ c: RegressionComparison, _ category: String, _ outcome: RegressionOutcome) -> RegressionFinding? {
    if case .flagged(let f) = decision(c, category, outcome) { f } else { nil }
}

private func evidence(_ c: RegressionComparison, _ category: String, _ outcome: RegressionOutcome) -> RegressionEvidence? {
    switch decision(c, category, outcome) {
    case .fine(let e): e
    case .flagged(let f): f.latest
    default: nil
    }
}

@Suite("Release regressions: the rule")
struct ReleaseRegressionTests {
    let rule = ReleaseRegressionRule()
    let manifests = Dictionary(uniqueKeysWithValues: [manifest("1.0", [message]), manifest("1.1", [message])])

    /// 1.1 ships at hour 48 with a Reply button that does nothing: 1 tap in 120 instead of 12.
    /// It is flagged within the release's first day; opens and Like are fine.
    @Test func brokenButtonIsFlaggedWithinADay() throws {
        let rows = hourly("1.0", 0..<72, delivered: 120, opens: 12, actions: ["reply": 12, "like": 4])
            + hourly("1.1", 48..<72, delivered: 120, opens: 12, actions: ["reply": 1, "like": 4])
        let c = try comparison(rule.evaluate(rows: rows, manifests: manifests, asOf: at(72)))
        #expect(c.candidateVersion == "1.1" && c.baselineVersions == ["1.0"])
        #expect(c.seriesInFamily == 3 && abs(c.alphaPerSeries - 0.05 / 3) < 1e-15)
        let f = try #require(finding(c, "message", .action("reply")))
        #expect(f.candidateVersion == "1.1" && f.baselineVersion == "1.0" && f.baselineVersions == ["1.0"])
        #expect(f.detectedAt > at(48) && f.detectedAt <= at(48 + 24), "detected \((f.detectedAt - at(48)) / hour) h after the release")
        #expect(f.atDetection.lookAt == f.detectedAt && f.atDetection.crossesMinimumDrop)
        // Only the 24 shared hours count, on both sides.
        #expect(f.latest.candidate == RegressionSide(delivered: 24 * 120, count: 24) && f.latest.baseline == RegressionSide(delivered: 24 * 120, count: 24 * 12))
        #expect(abs(f.latest.difference - (1.0 / 120 - 12.0 / 120)) < 1e-12 && abs(f.latest.pooledDifference - f.latest.difference) < 1e-12)
        #expect(abs(f.latest.referenceRate - 0.1) < 1e-12 && abs(f.latest.minimumDrop - 0.01) < 1e-12)
        #expect(f.latest.anytimeValid.upper < -f.latest.minimumDrop && f.latest.anytimeValid.lower < f.latest.difference)
        #expect(f.latest.fixedHorizon95.lower > f.latest.anytimeValid.lower, "the anytime-valid interval is the wider")
        #expect(f.latest.lookAt == at(72) && f.latest.strata == 1)
        #expect(c.findings.map(\.outcome) == [.action("reply")])
        guard case .fine(let opens) = decision(c, "message", .opens) else { Issue.record("opens not fine"); return }
        #expect(opens.difference == 0 && !opens.crossesMinimumDrop)
    }

    /// With 200,000 deliveries an hour on each side, a fall of 5% of the rate is measured to a
    /// hair, but it is below the default minimum of 10%: no finding. Tested against zero it
    /// would be one. A fall of 15% is flagged; a fall of exactly the minimum is not; a larger
    /// configured minimum spares the 15% one.
    @Test func theMinimumDropIsWhatIsTestedNotZero() throws {
        func run(candidateReplies: Int, minimum: Double) throws -> RegressionComparison {
            let rows = hourly("1.0", 0..<48, delivered: 200_000, opens: 20_000, actions: ["reply": 20_000, "like": 6_000])
                + hourly("1.1", 0..<48, delivered: 200_000, opens: 20_000, actions: ["reply": candidateReplies, "like": 6_000])
            let rule = ReleaseRegressionRule(configuration: RegressionConfiguration(minimumRelativeDrop: minimum))
            return try comparison(rule.evaluate(rows: rows, manifests: manifests, asOf: at(48)))
        }
        let small = try run(candidateReplies: 19_000, minimum: 0.10)
        let e = try #require(evidence(small, "message", .action("reply")))
        #expect(finding(small, "message", .action("reply")) == nil)
        #expect(e.anytimeValid.upper < -0.004 && e.anytimeValid.lower > -0.01, "a drop of 0.5 pp, known to within \(e.anytimeValid)")
        #expect(e.rulesOutMinimumDrop)
        #expect(finding(try run(candidateReplies: 19_000, minimum: 0), "message", .action("reply")) != nil)
        #expect(finding(try run(candidateReplies: 17_000, minimum: 0.10), "message", .action("reply")) != nil)
        #expect(finding(try run(candidateReplies: 18_000, minimum: 0.10), "message", .action("reply")) == nil)
        #expect(finding(try run(candidateReplies: 17_000, minimum: 0.20), "message", .action("reply")) == nil)
    }

    /// 1.1 is adopted mostly on iPadOS, where every rate is half of iPhone's; within each
    /// platform nothing changed. The pooled difference says "everything broke"; the stratified
    /// one says nothing did, and there is no finding.
    @Test func aPlatformMixShiftRaisesNoAlarm() throws {
        let rows = hourly("1.0", 0..<72, platform: "iOS", delivered: 900, opens: 90, actions: ["reply": 90, "like": 36])
            + hourly("1.0", 0..<72, platform: "iPadOS", delivered: 100, opens: 5, actions: ["reply": 5, "like": 2])
            + hourly("1.1", 24..<72, platform: "iOS", delivered: 100, opens: 10, actions: ["reply": 10, "like": 4])
            + hourly("1.1", 24..<72, platform: "iPadOS", delivered: 900, opens: 45, actions: ["reply": 45, "like": 18])
        let c = try comparison(rule.evaluate(rows: rows, manifests: manifests, asOf: at(72)))
        #expect(c.findings.isEmpty)
        for outcome in [RegressionOutcome.opens, .action("reply")] {
            let e = try #require(evidence(c, "message", outcome))
            #expect(abs(e.difference) < 1e-12, "\(outcome): stratified \(e.difference)")
            #expect(e.pooledDifference < -0.03 && e.pooledDifference < -e.minimumDrop, "\(outcome): pooled \(e.pooledDifference)")
            #expect(e.strata == 4) // 2 platforms × 2 UTC days
        }
    }

    /// Engagement falls day by day for every version (a news cycle, a season). 1.1 arrives on
    /// day 8, when rates are lowest: compared within the hours both delivered, it is no worse.
    @Test func aTrendOverTimeIsNotARegression() throws {
        var rows: [RegressionRow] = []
        for day in 0..<10 {
            let opens = 30 - 2 * day // 15% falling to 6%
            rows += hourly("1.0", (24 * day)..<(24 * day + 24), delivered: 200, opens: opens, actions: ["reply": opens, "like": 6])
            if day >= 8 { rows += hourly("1.1", (24 * day)..<(24 * day + 24), delivered: 200, opens: opens, actions: ["reply": opens, "like": 6]) }
        }
        let c = try comparison(rule.evaluate(rows: rows, manifests: manifests, asOf: at(240)))
        #expect(c.findings.isEmpty)
        let e = try #require(evidence(c, "message", .opens))
        #expect(abs(e.difference) < 1e-12 && e.baseline.delivered == 48 * 200)
        #expect(abs(e.referenceRate - (14.0 + 12) / 2 / 200) < 1e-12)
    }

    /// Too little data gets no finding and says why.
    @Test func tooLittleDataSaysSo() throws {
        let rows = hourly("1.0", 0..<48, delivered: 100, opens: 10, actions: ["reply": 10, "like": 1])
            + hourly("1.1", 46..<48, delivered: 20, opens: 0, actions: ["reply": 0, "like": 0])
        let c = try comparison(rule.evaluate(rows: rows, manifests: manifests, asOf: at(48)))
        #expect(c.findings.isEmpty)
        guard case .notEnoughData(let why, let candidate, let baseline) = decision(c, "message", .action("reply")) else {
            Issue.record("reply: \(String(describing: decision(c, "message", .action("reply"))))")
            return
        }
        #expect(why == .belowMinimumDeliveries(candidate: 40, baseline: 200, required: 100) && candidate == 40 && baseline == 200)
        #expect(why.code == "below_minimum_deliveries" && why.description.contains("fewer than 100 delivered"))

        // Enough deliveries, too rare an action: 1% of 300 expects 3 taps.
        let rare = hourly("1.0", 0..<48, delivered: 100, opens: 10, actions: ["reply": 10, "like": 1])
            + hourly("1.1", 45..<48, delivered: 100, opens: 10, actions: ["reply": 10, "like": 1])
        let r = try comparison(rule.evaluate(rows: rare, manifests: manifests, asOf: at(48)))
        guard case .notEnoughData(.expectedCountBelowMinimum(let expected, 5), _, _) = decision(r, "message", .action("like")) else {
            Issue.record("like: \(String(describing: decision(r, "message", .action("like"))))")
            return
        }
        #expect(abs(expected - 3) < 1e-9)
        if case .fine = decision(r, "message", .opens) {} else { Issue.record("opens should be testable") }

        // The old version stopped delivering when the new one started: no hour to compare.
        let apart = hourly("1.0", 0..<24, delivered: 120, opens: 12, actions: ["reply": 12, "like": 4])
            + hourly("1.1", 24..<48, delivered: 120, opens: 1, actions: ["reply": 1, "like": 4])
        let a = try comparison(rule.evaluate(rows: apart, manifests: manifests, asOf: at(48)))
        #expect(decision(a, "message", .opens) == .notEnoughData(.noSharedHours, candidateDelivered: 2_880, baselineDelivered: 2_880))
        #expect(a.findings.isEmpty)

        // A category in the candidate's manifest it has not delivered yet.
        let quiet = Dictionary(uniqueKeysWithValues: [manifest("1.0", [message, ManifestCategory(identifier: "quiet")]),
                                                      manifest("1.1", [message, ManifestCategory(identifier: "quiet")])])
        let q = try comparison(rule.evaluate(rows: rows, manifests: quiet, asOf: at(48)))
        #expect(decision(q, "quiet", .opens) == .notEnoughData(.noCandidateDeliveries, candidateDelivered: 0, baselineDelivered: 0))
    }

    /// Three versions live at once: 1.2 is the candidate; opens pool 1.1 and 1.0; Like, which
    /// only 1.1 registered before, pools 1.1 alone; the broken Like names 1.1 as its baseline.
    @Test func threeVersionsLiveAtOnce() throws {
        let old = ManifestCategory(identifier: "message", actions: [ManifestAction(identifier: "reply")])
        let manifests = Dictionary(uniqueKeysWithValues: [manifest("1.0", [old]), manifest("1.1", [message]), manifest("1.2", [message])])
        let rows = hourly("1.0", 0..<96, delivered: 150, opens: 15, actions: ["reply": 15])
            + hourly("1.1", 24..<96, delivered: 150, opens: 15, actions: ["reply": 15, "like": 15])
            + hourly("1.2", 48..<96, delivered: 150, opens: 15, actions: ["reply": 15, "like": 1])
        let c = try comparison(rule.evaluate(rows: rows, manifests: manifests, asOf: at(96)))
        #expect(c.candidateVersion == "1.2" && c.baselineVersions == ["1.1", "1.0"])
        #expect(c.results.first { $0.outcome == .opens }?.baselineVersions == ["1.1", "1.0"])
        #expect(c.results.first { $0.outcome == .action("like") }?.baselineVersions == ["1.1"])
        let like = try #require(finding(c, "message", .action("like")))
        #expect(like.baselineVersion == "1.1" && like.baselineVersions == ["1.1"] && like.latest.baseline.delivered == 48 * 150)
        let opens = try #require(evidence(c, "message", .opens))
        #expect(opens.baseline.delivered == 48 * 300)
        #expect(c.findings.count == 1)
    }

    /// The newest version is the highest version number, not the last to appear in the rows:
    /// 1.9's stragglers deliver for the first time after 1.10 shipped, and 1.10 is still the candidate.
    @Test func theCandidateIsTheHighestVersion() throws {
        let manifests = Dictionary(uniqueKeysWithValues: [manifest("1.9", [message]), manifest("1.10", [message])])
        let rows = hourly("1.10", 0..<48, delivered: 120, opens: 12, actions: ["reply": 12, "like": 4])
            + hourly("1.9", 30..<48, delivered: 10, opens: 1, actions: ["reply": 1])
        let c = try comparison(rule.evaluate(rows: rows, manifests: manifests, asOf: at(48)))
        #expect(c.candidateVersion == "1.10" && c.baselineVersions == ["1.9"])
        let pinned = ReleaseRegressionRule(configuration: RegressionConfiguration(candidateVersion: "1.9"))
        #expect(try comparison(pinned.evaluate(rows: rows, manifests: manifests, asOf: at(48))).baselineVersions == ["1.10"])
    }

    /// A category new in the candidate is no regression, and is not counted in the family.
    @Test func aNewCategoryIsNotARegression() throws {
        let survey = ManifestCategory(identifier: "survey", options: ["customDismissAction"], actions: [ManifestAction(identifier: "answer", textInput: true)])
        let manifests = Dictionary(uniqueKeysWithValues: [manifest("1.0", [message]), manifest("1.1", [message, survey])])
        let rows = hourly("1.0", 0..<48, delivered: 120, opens: 12, actions: ["reply": 12, "like": 4])
            + hourly("1.1", 24..<48, delivered: 120, opens: 12, actions: ["reply": 12, "like": 4])
            + hourly("1.1", 24..<48, category: "survey", delivered: 120, opens: 0, actions: ["answer": 0])
        let c = try comparison(rule.evaluate(rows: rows, manifests: manifests, asOf: at(48)))
        let survey4 = c.results.filter { $0.category == "survey" }
        #expect(survey4.map(\.outcome) == [.opens, .action("answer"), .textReplies, .dismissals])
        #expect(survey4.allSatisfy { $0.decision == .exempt(.newCategory) })
        #expect(c.seriesInFamily == 3 && c.findings.isEmpty)
    }

    /// An action the candidate's manifest removed is a manifest change, not a regression, and a
    /// new action has no baseline.
    @Test func manifestChangesAreNotRegressions() throws {
        let changed = ManifestCategory(identifier: "message", actions: [ManifestAction(identifier: "reply"), ManifestAction(identifier: "share")])
        let manifests = Dictionary(uniqueKeysWithValues: [manifest("1.0", [message]), manifest("1.1", [changed])])
        let rows = hourly("1.0", 0..<48, delivered: 120, opens: 12, actions: ["reply": 12, "like": 12])
            + hourly("1.1", 24..<48, delivered: 120, opens: 12, actions: ["reply": 12, "share": 3])
        let c = try comparison(rule.evaluate(rows: rows, manifests: manifests, asOf: at(48)))
        #expect(decision(c, "message", .action("like")) == .exempt(.removedFromManifest(versions: ["1.0"])))
        #expect(decision(c, "message", .action("share")) == .exempt(.newOutcome))
        #expect(RegressionExemption.removedFromManifest(versions: ["1.0"]).code == "manifest_change")
        #expect(c.findings.isEmpty && c.seriesInFamily == 2)
    }

    /// Without the candidate's manifest only opens can be compared, and the comparison says so.
    @Test func aCandidateWithoutManifestComparesOpensOnly() throws {
        let rows = hourly("1.0", 0..<48, delivered: 120, opens: 12, actions: ["reply": 12, "like": 4])
            + hourly("1.1", 24..<48, delivered: 120, opens: 2, actions: ["reply": 1, "like": 4])
        let c = try comparison(rule.evaluate(rows: rows, manifests: ["1.0": manifests["1.0"]!], asOf: at(48)))
        #expect(c.candidateManifestMissing && c.results.map(\.outcome) == [.opens] && c.seriesInFamily == 1)
        #expect(c.findings.map(\.outcome) == [.opens])
    }

    /// `asOf` replays: the finding of the full evaluation appears at the look that detected it,
    /// not an hour before, with the same evidence; rows after the instant change nothing.
    @Test func replayedLooksAgree() throws {
        let rows = hourly("1.0", 0..<72, delivered: 60, opens: 6, actions: ["reply": 6, "like": 2])
            + hourly("1.1", 48..<72, delivered: 60, opens: 6, actions: ["reply": 1, "like": 2])
        let full = try comparison(rule.evaluate(rows: rows, manifests: manifests, asOf: at(72)))
        let f = try #require(finding(full, "message", .action("reply")))
        let then = try comparison(rule.evaluate(rows: rows, manifests: manifests, asOf: f.detectedAt))
        let replayed = try #require(finding(then, "message", .action("reply")))
        #expect(replayed.detectedAt == f.detectedAt && replayed.atDetection == f.atDetection && replayed.latest == f.atDetection)
        let before = try comparison(rule.evaluate(rows: rows, manifests: manifests, asOf: f.detectedAt - hour))
        #expect(before.findings.isEmpty)
        // Mid-hour: the look is stamped with the instant, and that hour's rows are the caller's cut.
        let cut = rows.filter { $0.hour < f.detectedAt }
        #expect(try comparison(rule.evaluate(rows: cut, manifests: manifests, asOf: f.detectedAt)) == then)
        let midHour = try comparison(rule.evaluate(rows: rows, manifests: manifests, asOf: f.detectedAt - hour / 2))
        #expect(finding(midHour, "message", .action("reply"))?.detectedAt == f.detectedAt - hour / 2)
    }

    /// The rows' order, and whether counts and actions come in one row or several, do not matter.
    @Test func rowsOrderAndSplittingDoNotMatter() throws {
        var rng = SeededGenerator(seed: 3)
        let data = RegressionSimulation.aaComparison(seed: 11)
        var split: [RegressionRow] = []
        for row in data.rows {
            var counts = row
            counts.actions = [:]
            var actions = row
            actions.delivered = 0
            actions.opens = 0
            actions.dismissals = 0
            actions.textReplies = 0
            split += [counts, actions]
        }
        split.shuffle(using: &rng)
        let a = rule.evaluate(rows: data.rows, manifests: data.manifests, asOf: data.asOf)
        let b = rule.evaluate(rows: split, manifests: data.manifests, asOf: data.asOf)
        #expect(a == b)
    }

    /// The store's day rows (24 hours per row, as the release rollups keep them) give the same
    /// verdict, and the same daily chart of each finding, as the same counts in hourly rows.
    @Test(arguments: [("aa", 11), ("power", 4)])
    func dayRowsAndHourlyRowsAgree(kind: String, seed: UInt64) throws {
        let data = kind == "aa" ? RegressionSimulation.aaComparison(seed: seed)
            : RegressionSimulation.powerComparison(RegressionSimulation.PowerScenario(candidateRate: 0.05, deliveriesPerDayPerVersion: 2_000,
                                                                                        horizonDays: 4), seed: seed, days: 4)
        struct Key: Hashable { var day: Int64, category: String, version: String, platform: String, segment: String }
        var byDay: [Key: RegressionDayRow] = [:]
        for row in data.rows {
            let day = RollupDeltas.floor(row.hour, RollupDeltas.microsecondsPerDay)
            let key = Key(day: day, category: row.category, version: row.appVersion, platform: row.platform, segment: row.segment)
            let zero = Array(repeating: 0, count: 24)
            var d = byDay[key] ?? RegressionDayRow(category: row.category, appVersion: row.appVersion, platform: row.platform,
                                                   segment: row.segment, day: day, delivered: zero, opens: zero, dismissals: zero,
                                                   textReplies: zero)
            let h = Int((row.hour - day) / RollupDeltas.microsecondsPerHour)
            d.delivered[h] += row.delivered
            d.opens[h] += row.opens
            d.dismissals[h] += row.dismissals
            d.textReplies[h] += row.textReplies
            for (action, n) in row.actions {
                if let k = d.actions.firstIndex(where: { $0.identifier == action }) {
                    d.actions[k].counts[h] += n
                } else {
                    var counts = zero
                    counts[h] = n
                    d.actions.append(RegressionActionHours(identifier: action, counts: counts))
                }
            }
            byDay[key] = d
        }
        // Hours after the instant are in the day rows too (a day row is whole): the rule drops them.
        let days = Array(byDay.values)
        let hourly = rule.evaluate(rows: data.rows.filter { $0.hour < data.asOf }, manifests: data.manifests, asOf: data.asOf)
        let (daily, charts) = rule.evaluate(days: days, manifests: data.manifests, asOf: data.asOf)
        #expect(daily == hourly)
        let findings = try comparison(hourly).findings
        if kind == "power" { #expect(!findings.isEmpty, "the power scenario flags its broken button") }
        #expect(charts.count == findings.count)
        for f in findings {
            let expected = ReleaseRegressionRule.days(rows: data.rows, category: f.category, outcome: f.outcome,
                                                      candidate: f.candidateVersion, baselineVersions: f.baselineVersions, asOf: data.asOf)
            #expect(!expected.isEmpty)
            #expect(charts[RegressionSeriesKey(category: f.category, outcome: f.outcome)] == expected)
        }
        #expect(days.flatMap(\.hourly).count >= data.rows.filter { $0.hour < data.asOf }.count / 2)
    }

    /// A stratum (platform × day) where a side has more responses than deliveries is left out and counted.
    @Test func aStratumWithMoreResponsesThanDeliveriesIsLeftOut() throws {
        var rows = hourly("1.0", 0..<48, delivered: 120, opens: 12, actions: ["reply": 12, "like": 4])
            + hourly("1.1", 24..<48, delivered: 120, opens: 12, actions: ["reply": 12, "like": 4])
        rows += hourly("1.0", 24..<25, platform: "iPadOS", delivered: 10, opens: 1)
            + hourly("1.1", 24..<25, platform: "iPadOS", delivered: 2, opens: 5)
        let c = try comparison(rule.evaluate(rows: rows, manifests: manifests, asOf: at(48)))
        let e = try #require(evidence(c, "message", .opens))
        #expect(e.notMeaningfulDeliveries == 12 && e.strata == 1 && e.candidate.delivered == 24 * 120)
    }

    /// The caller's segment (a campaign, say) is a further stratum dimension.
    @Test func segmentsAreStrata() throws {
        let rows = hourly("1.0", 0..<48, segment: "sale", delivered: 500, opens: 100, actions: ["reply": 100, "like": 20])
            + hourly("1.0", 0..<48, segment: "digest", delivered: 500, opens: 10, actions: ["reply": 10, "like": 20])
            + hourly("1.1", 24..<48, segment: "sale", delivered: 50, opens: 10, actions: ["reply": 10, "like": 2])
            + hourly("1.1", 24..<48, segment: "digest", delivered: 950, opens: 19, actions: ["reply": 19, "like": 38])
        let c = try comparison(rule.evaluate(rows: rows, manifests: manifests, asOf: at(48)))
        #expect(c.findings.isEmpty)
        let e = try #require(evidence(c, "message", .opens))
        #expect(abs(e.difference) < 1e-12 && e.pooledDifference < -0.05 && e.strata == 2)
    }

    @Test func noComparisonWithoutTwoVersions() {
        let one = hourly("1.0", 0..<10, delivered: 100, opens: 10)
        guard case .noComparison(let why) = rule.evaluate(rows: one, manifests: manifests, asOf: at(10)) else {
            Issue.record("compared one version")
            return
        }
        #expect(why.contains("only version 1.0"))
        let configured = ReleaseRegressionRule(configuration: RegressionConfiguration(candidateVersion: "2.0"))
        guard case .noComparison(let missing) = configured.evaluate(rows: one, manifests: manifests, asOf: at(10)) else {
            Issue.record("compared a version that never delivered")
            return
        }
        #expect(missing.contains("2.0 delivered nothing"))
        // Unknown versions ('') are neither side.
        let unknown = one + hourly("", 5..<10, delivered: 100, opens: 0)
        if case .comparison = rule.evaluate(rows: unknown, manifests: manifests, asOf: at(10)) { Issue.record("'' counted as a version") }
    }

    @Test func configurationProblems() {
        #expect(RegressionConfiguration.default.problem == nil)
        #expect(RegressionConfiguration(familyAlpha: 0).problem != nil)
        #expect(RegressionConfiguration(minimumRelativeDrop: 1).problem != nil)
        #expect(RegressionConfiguration(minimumRelativeDrop: -0.1).problem != nil)
        #expect(RegressionConfiguration(tuningEffectiveDeliveries: 0).problem != nil)
        #expect(RegressionConfiguration(minimumSample: MinimumSample(perSide: 0)).problem != nil)
    }

    @Test func outcomeNames() {
        #expect(RegressionOutcome.opens.actionIdentifier == SystemAction.open)
        #expect(RegressionOutcome.dismissals.actionIdentifier == SystemAction.dismiss)
        #expect(RegressionOutcome.action("reply").actionIdentifier == "reply" && RegressionOutcome.textReplies.actionIdentifier == nil)
        #expect([RegressionOutcome.dismissals, .action("b"), .textReplies, .action("a"), .opens].sorted()
            == [.opens, .action("a"), .action("b"), .textReplies, .dismissals])
    }

    /// Every look of one series recomputed by Tests/Statistics/confidence_sequence.py, exactly,
    /// from the rows: the cells both sides delivered, platform × UTC day strata, the minimum
    /// sample, Mantel–Haenszel with max(Sato, null) variance, the boundary, the drop, the first
    /// crossing. Evaluated at every sixth hour, each evaluation's latest look must match.
    @Test(arguments: [("A/A, like, 1.1 against 1.0 and 0.9", "aa"), ("broken accept, 10% to 5%", "power")])
    func equalsIndependentRecomputation(name: String, kind: String) throws {
        let data: RegressionSimulation.Comparison, category: String, outcome: RegressionOutcome
        let candidate: String, baselines: [String]
        if kind == "aa" {
            data = RegressionSimulation.aaComparison(seed: 5, scenario: { var s = RegressionSimulation.AAScenario(); s.days = 6; return s }())
            (category, outcome, candidate, baselines) = ("message", .action("like"), "1.1", ["1.0", "0.9"])
        } else {
            data = RegressionSimulation.powerComparison(RegressionSimulation.PowerScenario(candidateRate: 0.05, deliveriesPerDayPerVersion: 500, horizonDays: 6),
                                                        seed: 5, days: 6)
            (category, outcome, candidate, baselines) = ("invite", .action("accept"), "2.1", ["2.0"])
        }
        // Pinned: in the first hours 1.1 has not delivered yet, and 1.0 is then the newest version.
        let configuration = RegressionConfiguration(familyAlpha: 0.05, minimumRelativeDrop: 0.1, candidateVersion: candidate)
        let rule = ReleaseRegressionRule(configuration: configuration)
        let full = try comparison(rule.evaluate(rows: data.rows, manifests: data.manifests, asOf: data.asOf))
        let rows: [[Any]] = data.rows.filter { $0.category == category }.map {
            [$0.appVersion, $0.platform, $0.segment, $0.hour, $0.delivered, outcome == .opens ? $0.opens : ($0.actions[outcome.actionIdentifier!] ?? 0)]
        }
        let reference = try StatisticsOracle.run([
            "mode": "regression", "alpha": full.alphaPerSeries, "tuning": configuration.tuningEffectiveDeliveries,
            "relativeDrop": configuration.minimumRelativeDrop, "perSide": configuration.minimumSample.perSide,
            "expected": configuration.minimumSample.expectedCount, "asOf": data.asOf, "candidate": candidate,
            "baselines": baselines, "rows": rows,
        ])
        let looks = try #require(reference["looks"] as? [[String: Any]])
        try #require(looks.count > 24, "\(name): \(looks.count) looks")
        let byTime = Dictionary(uniqueKeysWithValues: looks.map { (($0["lookAt"] as! NSNumber).int64Value, $0) })
        var compared = 0
        for h in stride(from: 6, through: (Int(data.asOf - data.release) / Int(hour)), by: 6) {
            let asOf = data.release + Int64(h) * hour
            guard case .comparison(let c) = rule.evaluate(rows: data.rows, manifests: data.manifests, asOf: asOf),
                  let e = evidence(c, category, outcome) else { continue }
            let r = try #require(byTime[e.lookAt], "\(name): no reference look at hour \(h)")
            #expect(StatisticsOracle.close(e.difference, r["difference"]), "\(name) h\(h): difference")
            #expect(StatisticsOracle.close(e.variance, r["variance"]), "\(name) h\(h): variance")
            #expect(StatisticsOracle.close(e.anytimeValid.lower, r["lower"]), "\(name) h\(h): lower")
            #expect(StatisticsOracle.close(e.anytimeValid.upper, r["upper"]), "\(name) h\(h): upper")
            #expect(StatisticsOracle.close(e.referenceRate, r["reference"]), "\(name) h\(h): reference rate")
            #expect(e.candidate.delivered == (r["candidateDelivered"] as? NSNumber)?.intValue
                && e.baseline.delivered == (r["baselineDelivered"] as? NSNumber)?.intValue, "\(name) h\(h): deliveries")
            compared += 1
        }
        #expect(compared >= 10, "\(name): \(compared) looks compared")
        let detected = (reference["detectedAt"] as? NSNumber)?.int64Value
        #expect(finding(full, category, outcome)?.detectedAt == detected, "\(name): detected at")
        if kind == "power" { #expect(detected != nil) } else { #expect(detected == nil) }
    }
}
