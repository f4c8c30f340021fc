import Foundation
import TapwireStatistics
import Testing
import TapwireCore
@testable import TapwireReport
import TapwireStore
import TapwireTestSupport

/// One side of one stratum, posted as events: `delivered` deliveries, the first `engaged` of
/// them opened. `orphans` opens arrive without any delivery; `sent` is what the backend sent.
struct StratumCell {
    var category = "message"
    var campaign: String
    var version = "1.0"
    var platform = "iOS"
    var rich: Bool
    var delivered: Int
    var engaged: Int
    var orphans = 0
    var sent = 0
}

/// An app whose telemetry is exactly the given cells, spread over `days` days from
/// ReportFixtures.start (the first 20 hours of one UTC day by default, so each cell lies in one
/// day's strata), posted through the HTTP API. The engaged deliveries are the first ones, or
/// spread evenly over the days with `evenly`.
struct StrataApp {
    let collector: TestCollector
    let app: CreatedApp
    static var from: Timestamp { ReportFixtures.start }
    static var to: Timestamp { ReportFixtures.start.adding(microseconds: 3 * ReportFixtures.day) }

    init(_ cells: [StratumCell], seed: UInt64 = 12, days: Int = 1, evenly: Bool = false) throws {
        collector = try TestCollector.start { $0.rateLimitPerSecond = 0 }
        app = try collector.database.createApp()
        var rng = SeededGenerator(seed: seed)
        var batches: [String: [JSONValue]] = [:]
        let span = days == 1 ? 20 * ReportFixtures.hour : Int64(days) * ReportFixtures.day
        for (c, cell) in cells.enumerated() {
            var events: [JSONValue] = []
            var extra: [(String, JSONValue)] = [("hasMedia", .bool(cell.rich))]
            if !cell.campaign.isEmpty { extra.append(("campaign", .string(cell.campaign))) }
            for j in 0..<cell.delivered {
                let time = ReportFixtures.start.adding(microseconds: Int64(j) * span / Int64(max(1, cell.delivered)) + Int64(c) * 1_000_000)
                events.append(TestBatch.event("delivered", id: .v7(at: time, using: &rng), at: time, category: cell.category, extra))
                let engaged = evenly ? (j + 1) * cell.engaged / max(1, cell.delivered) > j * cell.engaged / max(1, cell.delivered)
                                     : j < cell.engaged
                if engaged {
                    let responded = time.adding(seconds: 30)
                    events.append(TestBatch.event("response", id: .v7(at: responded, using: &rng), at: responded, category: cell.category,
                                                  extra + [("actionIdentifier", .string(SystemAction.open))]))
                }
            }
            for j in 0..<cell.sent {
                let time = ReportFixtures.start.adding(microseconds: Int64(j) * 60_000_000 + 3_600_000_000)
                events.append(TestBatch.event("sent", id: .v7(at: time, using: &rng), at: time, category: cell.category, extra))
            }
            for j in 0..<cell.orphans {
                let time = ReportFixtures.start.adding(microseconds: Int64(j) * 60_000_000 + 7_200_000_000)
                events.append(TestBatch.event("response", id: .v7(at: time, using: &rng), at: time, category: cell.category,
                                              extra + [("actionIdentifier", .string(SystemAction.open))]))
            }
            batches[cell.version + "\u{1}" + cell.platform, default: []] += events
        }
        let client = collector.client()
        for (key, events) in batches.sorted(by: { $0.key < $1.key }) {
            let parts = key.split(separator: "\u{1}", omittingEmptySubsequences: false).map(String.init)
            for chunk in stride(from: 0, to: events.count, by: 1_000) {
                _ = try ReportFixtures.post(client, key: app.writeKey.text,
                                            TestBatch.body(Array(events[chunk..<min(events.count, chunk + 1_000)]),
                                                           context: [("appVersion", .string(parts[0])), ("platform", .string(parts[1]))]))
            }
        }
    }

    func report(source: ReportSource = .rollups, from: Timestamp = StrataApp.from, to: Timestamp = StrataApp.to, timeZone: String = "UTC",
                groupBy: ReportDimension? = nil, target: Double? = nil) throws -> EngagementReport {
        let connection = try collector.database.connect()
        defer { connection.close() }
        let scope = ReportScope(appId: app.appId, from: from, to: to, timeZone: timeZone, groupBy: groupBy, source: source)
        return try EngagementReportService().report(appName: app.name, scope: scope, targetDifference: target, on: connection,
                                                    now: Timestamp(microseconds: 0))
    }

    /// The 2×2 tables of the cells of one day, keyed as the report stratifies (category × campaign
    /// × platform; for the expected figures).
    static func tables(_ cells: [StratumCell]) -> [StratumCounts] {
        var tables: [String: StratumCounts] = [:]
        for cell in cells {
            let key = [cell.category, cell.campaign, cell.platform].joined(separator: "\u{1}")
            var t = tables[key] ?? StratumCounts(x1: 0, n1: 0, x2: 0, n2: 0)
            if cell.rich { t.x1 += cell.engaged + cell.orphans; t.n1 += cell.delivered } else { t.x2 += cell.engaged + cell.orphans; t.n2 += cell.delivered }
            tables[key] = t
        }
        return tables.sorted { $0.key < $1.key }.map(\.value)
    }
}

private func close(_ a: Double?, _ b: Double?, _ tolerance: Double = 1e-12) -> Bool {
    guard let a, let b else { return false }
    return abs(a - b) <= tolerance
}

/// The report's estimate (its sums kept exactly by the database, then read as doubles) against
/// one computed here in doubles: equal to rounding.
private func same(_ a: MantelHaenszelRiskDifference?, _ b: MantelHaenszelRiskDifference?) -> Bool {
    guard let a, let b else { return a == nil && b == nil }
    func near(_ x: Double, _ y: Double) -> Bool { abs(x - y) <= 1e-12 * max(1, abs(x), abs(y)) }
    return near(a.difference, b.difference) && near(a.variance, b.variance) && near(a.ci95.lower, b.ci95.lower)
        && near(a.ci95.upper, b.ci95.upper) && near(a.pValue, b.pValue) && near(a.chiSquare ?? 0, b.chiSquare ?? 0)
        && near(a.nullVariance, b.nullVariance) && a.strata == b.strata && a.excludedTrials == b.excludedTrials
}

@Suite("Adjusted rich vs text-only: Mantel–Haenszel over campaign × platform × UTC day")
struct AdjustedUpliftTests {
    /// Rich wins by 3 pp in the low-rate campaign and by 5 pp in the high-rate one, but went out
    /// mostly in the low one: pooled, rich loses by 15.2 pp.
    static let simpson = [
        StratumCell(campaign: "low", rich: true, delivered: 900, engaged: 90), StratumCell(campaign: "low", rich: false, delivered: 100, engaged: 7),
        StratumCell(campaign: "high", rich: true, delivered: 100, engaged: 35), StratumCell(campaign: "high", rich: false, delivered: 900, engaged: 270),
    ]

    @Test func simpsonsParadoxInsideOneCategory() throws {
        let sample = try StrataApp(Self.simpson)
        defer { sample.collector.stop() }
        let report = try sample.report()
        let message = try ReportFixtures.category(report, "message")
        let u = message.uplift
        #expect(close(u.comparison.difference, 125.0 / 1_000 - 277.0 / 1_000))
        #expect(close(u.adjusted.difference, 0.04), "adjusted \(String(describing: u.adjusted.difference))")
        let expected = try #require(MantelHaenszelRiskDifference.estimate(StrataApp.tables(Self.simpson)))
        #expect(same(u.adjusted.estimate, expected))
        #expect(u.adjusted.strata == 2 && u.adjusted.excludedDelivered == 0)
        #expect(u.confounded)
        // Only one category: the overall figure, stratified by category too, is the same.
        #expect(close(report.overall.uplift.adjusted.difference, 0.04) && report.overall.uplift.confounded)

        // Every format says so.
        let json = JSONReportRenderer().json(report)
        let juplift = try #require(json["categories"]?.arrayValue?.first?["uplift"])
        #expect(juplift["confounded"]?.boolValue == true)
        #expect(json["overall"]?["uplift"]?["confounded"]?.boolValue == true)
        #expect(juplift["adjusted"]?["method"]?.stringValue == "mantel-haenszel")
        #expect(close(juplift["adjusted"]?["difference"]?.numberValue?.double, 0.04, 1e-6))
        #expect(close(juplift["difference"]?.numberValue?.double, -0.152, 1e-6), "the pooled difference is a fraction now")
        #expect(juplift["adjusted"]?["strata"]?.numberValue?.integer == 2)
        let table = TableReportRenderer().render(report)
        #expect(table.contains("yes ⚠") && table.contains("⚠ message: pooled -15.2 pp lies outside") == false)
        #expect(table.contains("⚠ message: pooled -15.2 pp points the other way from the adjusted +4.0 pp"))
        let html = HTMLReportRenderer().render(report)
        #expect(html.contains("<span class=\"badge\">confounded</span>"))
        #expect(html.contains("adjusted for category × campaign × platform × UTC day: +4.0 pp"), "headline shows the adjusted overall")
        #expect(html.contains("pooled: -15.2 pp"))
        let csv = CSVReportRenderer().render(report).split(separator: "\r\n").map { $0.split(separator: ",", omittingEmptySubsequences: false) }
        let column = try #require(CSVReportRenderer.header.firstIndex(of: "confounded"))
        #expect(csv[1][column] == "true")
        #expect(MarkdownReportRenderer().render(report).contains("yes ⚠"))
        try SchemaCheck.validate(JSONReportRenderer().render(report))
    }

    /// The versions of a campaign and platform share their stratum; a platform or campaign with
    /// one side only is excluded.
    @Test func strataWithOneSideOnlyAreExcluded() throws {
        let cells = [
            StratumCell(campaign: "both", rich: true, delivered: 300, engaged: 60), StratumCell(campaign: "both", rich: false, delivered: 300, engaged: 30),
            StratumCell(campaign: "both", version: "2.0", rich: true, delivered: 500, engaged: 100),
            StratumCell(campaign: "both", platform: "watchOS", rich: false, delivered: 200, engaged: 10),
            StratumCell(campaign: "", rich: true, delivered: 40, engaged: 4),
        ]
        let sample = try StrataApp(cells)
        defer { sample.collector.stop() }
        let u = try ReportFixtures.category(try sample.report(), "message").uplift
        #expect(u.adjusted.strata == 1)
        #expect(u.adjusted.excludedDelivered == 240)
        #expect(close(u.adjusted.difference, 160.0 / 800 - 30.0 / 300))
        let json = JSONReportRenderer().json(try sample.report())
        #expect(json["categories"]?.arrayValue?.first?["uplift"]?["adjusted"]?["excludedDelivered"]?.numberValue?.integer == 240)
    }

    /// One stratum: adjusted and pooled are the same difference; the CMH χ² is the pooled z² (N − 1)/N.
    @Test func aSingleStratum() throws {
        let cells = [StratumCell(campaign: "only", rich: true, delivered: 400, engaged: 80),
                     StratumCell(campaign: "only", rich: false, delivered: 500, engaged: 50)]
        let sample = try StrataApp(cells)
        defer { sample.collector.stop() }
        let u = try ReportFixtures.category(try sample.report(), "message").uplift
        #expect(close(u.adjusted.difference, 0.1) && close(u.comparison.difference, 0.1))
        #expect(!u.confounded)
        let z = try #require(ProportionStatistics.zStatistic(x1: 80, n1: 400, x2: 50, n2: 500))
        #expect(close(u.adjusted.estimate?.chiSquare, z * z * 899 / 900, 1e-9))
    }

    @Test func zeroEngagementOnOneSide() throws {
        let cells = [StratumCell(campaign: "a", rich: true, delivered: 200, engaged: 0), StratumCell(campaign: "a", rich: false, delivered: 200, engaged: 20),
                     StratumCell(campaign: "b", rich: true, delivered: 100, engaged: 0), StratumCell(campaign: "b", rich: false, delivered: 100, engaged: 12)]
        let sample = try StrataApp(cells)
        defer { sample.collector.stop() }
        let u = try ReportFixtures.category(try sample.report(), "message").uplift
        let expected = try #require(MantelHaenszelRiskDifference.estimate(StrataApp.tables(cells)))
        #expect(same(u.adjusted.estimate, expected))
        let ci = try #require(u.adjusted.ci95)
        #expect(ci.lower.isFinite && ci.upper.isFinite && ci.lower < expected.difference && expected.difference < ci.upper)
        #expect(expected.difference < 0 && (u.adjusted.pValue ?? 1) < 0.001)
        #expect(u.rich.rate == 0 && u.rich.ci95?.lower == 0)
    }

    /// 40 campaigns of 4 deliveries a side: Sato's variance is the one that stays valid here.
    static var manySmall: [StratumCell] {
        var cells: [StratumCell] = []
        for i in 0..<40 {
            let version = i % 2 == 0 ? "1.0" : "1.1"
            let richEngaged = i % 5 == 0 ? 3 : 2, textEngaged = i % 3 == 0 ? 2 : 1
            cells.append(StratumCell(campaign: "c\(i)", version: version, rich: true, delivered: 4, engaged: richEngaged))
            cells.append(StratumCell(campaign: "c\(i)", version: version, rich: false, delivered: 4, engaged: textEngaged))
        }
        return cells
    }

    @Test func manySmallStrataAndRollupsEqualRawEvents() throws {
        let cells = Self.manySmall + [StratumCell(category: "social_post", campaign: "c1", rich: true, delivered: 150, engaged: 20),
                                      StratumCell(category: "social_post", campaign: "c1", rich: false, delivered: 150, engaged: 40)]
        let sample = try StrataApp(cells)
        defer { sample.collector.stop() }
        let report = try sample.report()
        let u = try ReportFixtures.category(report, "message").uplift
        #expect(u.adjusted.strata == 40)
        let expected = try #require(MantelHaenszelRiskDifference.estimate(StrataApp.tables(Self.manySmall)))
        #expect(same(u.adjusted.estimate, expected))
        #expect(u.adjusted.sufficient)
        // Overall: stratified by category as well.
        let overall = try #require(MantelHaenszelRiskDifference.estimate(StrataApp.tables(cells)))
        #expect(same(report.overall.uplift.adjusted.estimate, overall) && overall.strata == 41)

        // --from-raw gives the same adjusted figures: over whole UTC days (their strata's sums), and
        // with edges off the hour in a half-hour zone (cut days from quarter hours and events).
        let raw = try sample.report(source: .rawEvents)
        #expect(try ReportFixtures.category(raw, "message").uplift == u)
        #expect(raw.overall.uplift == report.overall.uplift)
        let from = ReportFixtures.start.adding(microseconds: 5 * ReportFixtures.hour + 17 * 60_000_000)
        let to = ReportFixtures.start.adding(microseconds: ReportFixtures.day + 19 * ReportFixtures.hour + 1)
        for (zone, groupBy) in [("Asia/Kolkata", nil as ReportDimension?), ("UTC", .variant), ("America/St_Johns", .campaign)] {
            var fast = try sample.report(from: from, to: to, timeZone: zone, groupBy: groupBy)
            let slow = try sample.report(source: .rawEvents, from: from, to: to, timeZone: zone, groupBy: groupBy)
            #expect(fast.overall.uplift.adjusted.strata > 0)
            fast.source = .rawEvents
            #expect(fast == slow, "rollup and raw reports differ in \(zone) by \(String(describing: groupBy)): \(ReportDiff.describe(fast, slow))")
        }
    }

    @Test func howLongUntilItIsKnown() throws {
        let sample = try StrataApp(Self.simpson)
        defer { sample.collector.stop() }
        let given = try ReportFixtures.category(try sample.report(target: 0.005), "message").uplift
        #expect(given.detection.targetSource == .given && given.detection.target == 0.005)
        let mdd = try #require(given.detection.minimumDetectableDifference)
        let samples = 2_000, rangeDays = 3.0
        let days = try #require(given.detection.daysToDetect)
        #expect(abs(days - Double(samples) * ((mdd / 0.005) * (mdd / 0.005) - 1) / (Double(samples) / rangeDays)) < 1e-6)
        #expect(TableReportRenderer().render(try sample.report(target: 0.005)).contains("≈ \(Fmt.count(Int(days.rounded(.up)))) more days at current volume"))
        let big = try ReportFixtures.category(try sample.report(target: 0.5), "message").uplift
        #expect(big.detection.daysToDetect == 0)
        #expect(TableReportRenderer().render(try sample.report(target: 0.5)).contains("already detectable"))
        // Without a target: the observed adjusted difference when significant, else 2 pp.
        let auto = try ReportFixtures.category(try sample.report(), "message").uplift
        if let p = auto.adjusted.pValue, p < 0.05 {
            #expect(auto.detection.targetSource == .observed && close(auto.detection.target, 0.04))
        } else {
            #expect(auto.detection.targetSource == .default && auto.detection.target == 0.02)
        }
        let json = JSONReportRenderer().json(try sample.report(target: 0.005))
        let detection = json["categories"]?.arrayValue?.first?["uplift"]
        #expect(close(detection?["minimumDetectableDifference"]?.numberValue?.double, mdd, 1e-6))
        #expect(close(detection?["daysToDetect"]?.numberValue?.double, (days * 10).rounded() / 10, 1e-9))
    }

    /// The adjusted difference read day after day: the anytime-valid interval of the whole range is
    /// the last look of AnytimeUplift over the report's daily strata, and the day it decided is the
    /// first day whose report (over the range up to that day's end) has an anytime-valid interval
    /// excluding zero: the report computed afresh for each day, not the same sequence read twice.
    @Test func theAnytimeValidIntervalAndTheDayItDecided() throws {
        // Rich engages 30% against 20% in both campaigns, spread evenly over six days.
        let cells = [StratumCell(campaign: "a", rich: true, delivered: 900, engaged: 270), StratumCell(campaign: "a", rich: false, delivered: 900, engaged: 180),
                     StratumCell(campaign: "b", rich: true, delivered: 600, engaged: 180), StratumCell(campaign: "b", rich: false, delivered: 600, engaged: 120)]
        let sample = try StrataApp(cells, days: 6, evenly: true)
        defer { sample.collector.stop() }
        let to = StrataApp.from.adding(microseconds: 6 * ReportFixtures.day)
        let report = try sample.report(to: to)
        let adjusted = try ReportFixtures.category(report, "message").uplift.adjusted
        let anytime = try #require(adjusted.anytime.ci95)
        let fixed = try #require(adjusted.ci95)
        #expect(anytime.lower < fixed.lower && anytime.upper > fixed.upper, "the anytime-valid interval is wider: \(anytime) vs \(fixed)")
        #expect(adjusted.anytime.looks == 6)
        var decided: String?
        for day in 1...6 {
            let upTo = try ReportFixtures.category(try sample.report(to: StrataApp.from.adding(microseconds: Int64(day) * ReportFixtures.day)),
                                                   "message").uplift.adjusted
            if decided == nil, let ci = upTo.anytime.ci95, ci.lower > 0 || ci.upper < 0 {
                decided = Timestamp(microseconds: StrataApp.from.microseconds + Int64(day - 1) * ReportFixtures.day).iso8601(fractionDigits: 0).prefix(10).description
            }
            // A report's last look only depends on the days it covers.
            #expect(upTo.anytime.looks == day)
        }
        let firstDay = try #require(decided, "a 10 pp difference over 3,000 deliveries a side decided on no day")
        #expect(adjusted.anytime.decidedOn == firstDay)
        #expect(firstDay != "2026-11-02", "decided on the first day: the test says nothing about the looks")
        // Every format shows it.
        let json = JSONReportRenderer().json(report)
        let any = json["categories"]?.arrayValue?.first?["uplift"]?["adjusted"]?["anytimeValid"]
        #expect(any?["decidedOn"]?.stringValue == firstDay && close(any?["ci95"]?["lower"]?.numberValue?.double, anytime.lower, 1e-6))
        try SchemaCheck.validate(JSONReportRenderer().render(report))
        #expect(TableReportRenderer().render(report).contains(firstDay))
        #expect(MarkdownReportRenderer().render(report).contains(firstDay))
        #expect(HTMLReportRenderer().render(report).contains("decided on \(firstDay) (UTC)"))
        let csv = CSVReportRenderer().render(report).split(separator: "\r\n").map { $0.split(separator: ",", omittingEmptySubsequences: false) }
        let column = try #require(CSVReportRenderer.header.firstIndex(of: "adjusted_decided_on"))
        #expect(csv[1][column] == Substring(firstDay))
    }

    /// Responses without their deliveries: engaged exceeds delivered. No format shows a rate,
    /// let alone one over 100%, and none computes an interval; the odd cell leaves out only itself.
    @Test func engagementNeverExceedsItsBase() throws {
        let cells = [StratumCell(category: "orphaned", campaign: "x", rich: true, delivered: 5, engaged: 5, orphans: 9),
                     StratumCell(category: "orphaned", campaign: "x", rich: false, delivered: 200, engaged: 20),
                     StratumCell(category: "orphaned", campaign: "y", rich: true, delivered: 150, engaged: 30),
                     StratumCell(category: "orphaned", campaign: "y", rich: false, delivered: 150, engaged: 15)]
        let sample = try StrataApp(cells)
        defer { sample.collector.stop() }
        let report = try sample.report()
        let c = try ReportFixtures.category(report, "orphaned")
        // The rich cell of campaign x (14 engaged of 5) is left out of both figures; campaign y stands.
        #expect(c.uplift.notMeaningfulDelivered == 5 && c.uplift.engagedWithoutDeliveries == 0)
        #expect(c.uplift.rich.engaged == 30 && c.uplift.rich.delivered == 150 && c.uplift.rich.rate == 0.2)
        #expect(c.uplift.textOnly.engaged == 35 && c.uplift.textOnly.delivered == 350)
        #expect(c.uplift.sufficient && close(c.uplift.comparison.difference, 0.2 - 0.1))
        #expect(c.uplift.adjusted.strata == 1 && c.uplift.adjusted.excludedDelivered == 200)
        #expect(same(c.uplift.adjusted.estimate, MantelHaenszelRiskDifference.estimate([StratumCounts(x1: 0, n1: 0, x2: 20, n2: 200),
                                                                                         StratumCounts(x1: 30, n1: 150, x2: 15, n2: 150)])))
        #expect(c.engagementNotMeaningful == nil && c.engagementRate == 79.0 / 505)
        for text in [TableReportRenderer().render(report), MarkdownReportRenderer().render(report), HTMLReportRenderer().render(report)] {
            #expect(text.contains("5 delivered left out"), "the left-out cell is said")
            #expect(!text.contains("280.0%") && !text.contains("280%"), "a rate over 100% is shown")
        }
        let json = JSONReportRenderer().json(report)
        let uplift = json["categories"]?.arrayValue?.first?["uplift"]
        #expect(uplift?["notMeaningfulDelivered"]?.numberValue?.integer == 5)
        #expect(json["categories"]?.arrayValue?.first?["rich"]?["notMeaningful"] == .null)
        try SchemaCheck.validate(JSONReportRenderer().render(report))
        let csv = CSVReportRenderer().render(report).split(separator: "\r\n").map { $0.split(separator: ",", omittingEmptySubsequences: false) }
        let column = try #require(CSVReportRenderer.header.firstIndex(of: "uplift_not_meaningful_delivered"))
        #expect(csv[1][column] == "5")
        // A whole category over its base: its rate is withheld, and the overall leaves it out.
        let worse = try StrataApp([StratumCell(category: "orphaned", campaign: "x", rich: false, delivered: 3, engaged: 3, orphans: 4),
                                   StratumCell(category: "fine", campaign: "x", rich: false, delivered: 300, engaged: 30)], seed: 5)
        defer { worse.collector.stop() }
        let worseReport = try worse.report()
        let w = try ReportFixtures.category(worseReport, "orphaned")
        #expect(w.engagementRate == nil && w.engagementCI95 == nil && w.engagementNotMeaningful?.contains("exceeds delivered") == true)
        #expect(worseReport.overall.engagementRate == 0.1 && worseReport.overall.delivered == 300)
        #expect(worseReport.overall.excludedCategories.map(\.category) == ["orphaned"]
                && worseReport.overall.excludedCategories.first?.reason == .engagementNotMeaningful)
        #expect(TableReportRenderer().render(worseReport).contains("invalid"))
        #expect(Self.percentages("x 280.0% (+150%) 12.5% [0.0, 100.0]") == [280, 12.5], "the scan itself finds a rate over 100%")
        for report in [report, worseReport] {
            for text in [TableReportRenderer().render(report), MarkdownReportRenderer().render(report), HTMLReportRenderer().render(report)] {
                let over = Self.percentages(text).filter { $0 > 100 }
                #expect(over.isEmpty, "rates over 100% shown: \(over)")
            }
        }
    }

    /// The trigger of a blank headline: a category posted as `sent` only, with opens, beside
    /// categories whose pooled and adjusted differences disagree. Adding it changes none of the
    /// overall's figures: it has no deliveries, so no stratum and no share of any rate.
    @Test func aSentOnlyCategoryChangesNoOverallFigure() throws {
        let confounded = Self.simpson + Self.simpson.map { cell in
            var c = cell
            c.category = "social_post"
            c.delivered += 20
            return c
        }
        let digest = StratumCell(category: "digest", campaign: "", rich: false, delivered: 0, engaged: 0, orphans: 90, sent: 600)
        let without = try StrataApp(confounded, seed: 3)
        defer { without.collector.stop() }
        let with = try StrataApp(confounded + [digest], seed: 3)
        defer { with.collector.stop() }
        let a = try without.report(), b = try with.report()
        let d = try ReportFixtures.category(b, "digest")
        #expect(d.base == .sent && d.sent == 600 && d.opens == 90)
        #expect(b.overall.excludedCategories == [OverallExclusion(category: "digest", reason: .sentBase, delivered: 0, sent: 600, engaged: 90)])
        #expect(b.overall.uplift.engagedWithoutDeliveries == 90 && a.overall.uplift.engagedWithoutDeliveries == 0)
        var same = b.overall
        same.excludedCategories = []
        same.uplift.engagedWithoutDeliveries = 0
        #expect(same == a.overall, "the sent-only category moved an overall figure")
        let u = b.overall.uplift
        #expect(u.adjusted.sufficient && u.adjusted.strata == 4 && u.adjusted.excludedDelivered == 0)
        #expect(u.confounded && u.detection.minimumDetectableDifference != nil)
        let html = HTMLReportRenderer().render(b)
        #expect(html.contains("adjusted for category × campaign × platform × UTC day: +"), "the headline shows the adjusted overall")
        #expect(html.contains("<span class=\"badge\">confounded</span>"))
        #expect(html.contains("digest (no delivered events: its rate is over sent)"))
        let json = JSONReportRenderer().json(b)
        #expect(json["overall"]?["uplift"]?["confounded"]?.boolValue == true)
        #expect(json["overall"]?["excludedCategories"]?.arrayValue?.first?["reason"]?.stringValue == "sent_base")
        try SchemaCheck.validate(JSONReportRenderer().render(b))
    }

    /// Every "12.5%" in a text, as numbers (the lift is relative and has a sign: "+150%" is skipped).
    static func percentages(_ text: String) -> [Double] {
        var found: [Double] = []
        let characters = Array(text)
        var i = 0
        while i < characters.count {
            guard characters[i].isNumber, i == 0 || !(characters[i - 1].isNumber || characters[i - 1] == "." || characters[i - 1] == "+"
                                                      || characters[i - 1] == "-") else { i += 1; continue }
            var j = i
            while j < characters.count, characters[j].isNumber || characters[j] == "." { j += 1 }
            if j < characters.count, characters[j] == "%", let value = Double(String(characters[i..<j])) { found.append(value) }
            i = j
        }
        return found
    }
}
