import Foundation
import Testing
import TapwireCore
@testable import TapwireReport
import TapwireStore
import TapwireTestSupport

/// A report built without a database, from rows, for the renderer tests.
enum SampleReport {
    static func make(groupBy: ReportDimension? = nil) -> EngagementReport {
        let days = ["2026-11-02", "2026-11-03", "2026-11-04"]
        var counts: [ReportCountRow] = []
        for (d, day) in days.enumerated() {
            counts.append(ReportCountRow(group: "iOS", appVersion: "1.0", day: day, category: "message", hasMedia: true, delivered: 400 + d * 10,
                                         mediaRequested: 420, opens: 90, dismissals: 30, actions: 60, replies: 40))
            counts.append(ReportCountRow(group: "iOS", appVersion: "1.0", day: day, category: "message", hasMedia: false, delivered: 600,
                                         mediaRequested: 35, opens: 80, dismissals: 50, actions: 40, replies: 30))
            counts.append(ReportCountRow(group: "watchOS", appVersion: "1.0", day: day, category: "<b>promo\"&", hasMedia: false, delivered: 30,
                                         opens: 3))
            counts.append(ReportCountRow(group: "watchOS", appVersion: "", day: day, category: "digest", hasMedia: false, sent: 200, opens: 12))
        }
        let data = ReportData(days: days, counts: counts,
                              actions: [ReportActionRow(group: "iOS", category: "message", action: "reply", count: 210),
                                        ReportActionRow(group: "iOS", category: "message", action: "=cmd,\"x\"", count: 90)],
                              histograms: [ReportHistogramRow(group: "iOS", category: "message", metric: .replyLength, bin: 12, count: 70),
                                           ReportHistogramRow(group: "iOS", category: "message", metric: .timeToResponse, bin: 30, count: 300)],
                              grouped: groupBy != nil)
        let manifest = Manifest(appVersion: "1.0", categories: [ManifestCategory(identifier: "message", title: "Messages", options: ["customDismissAction"])])
        let scope = ReportScope(appId: 1, from: Timestamp(iso8601: "2026-11-02")!, to: Timestamp(iso8601: "2026-11-05")!, groupBy: groupBy)
        return EngagementReportBuilder().build(app: "sample", scope: scope, data: data, manifests: ["1.0": manifest],
                                               generatedAt: Timestamp(iso8601: "2026-11-05T08:00:00Z")!)
    }
}

@Suite("Report model and renderers")
struct RenderingTests {
    @Test func builderRules() throws {
        let report = SampleReport.make()
        let message = try #require(report.categories.first { $0.category == "message" })
        #expect(message.delivered == 3 * 1000 + 30)
        #expect(message.engaged == 3 * (150 + 120))
        #expect(message.base == .delivered)
        #expect(message.title == "Messages")
        #expect(message.uplift.sufficient)
        #expect(message.media.requested == 3 * 455 && message.media.notShown == 3 * 35)
        #expect(message.dismiss.measurable && message.dismiss.count == 240)
        #expect(message.daily.map(\.delivered) == [1000, 1010, 1020])
        // sent only: the base falls back to sent and says so; no delivered → no comparison.
        let digest = try #require(report.categories.first { $0.category == "digest" })
        #expect(digest.base == .sent)
        #expect(digest.engagementRate == 36.0 / 600.0)
        #expect(!digest.uplift.sufficient && digest.uplift.differencePoints == nil)
        // 90 delivered on one side: insufficient, with the reason.
        let promo = try #require(report.categories.first { $0.category == "<b>promo\"&" })
        #expect(!promo.uplift.sufficient && promo.uplift.comparison.insufficientReason != nil)
        #expect(!promo.dismiss.measurable)
    }

    @Test func tableFitsIn100Columns() {
        let text = TableReportRenderer().render(SampleReport.make(groupBy: .platform))
        let widest = text.split(separator: "\n").map(\.count).max() ?? 0
        #expect(widest <= 100, "widest line is \(widest) characters")
        #expect(text.contains("insufficient") && text.contains("n/m") && text.contains("platform = iOS"))
    }

    @Test func csvQuotesAndDefusesFormulas() {
        let csv = CSVReportRenderer().render(SampleReport.make())
        let lines = csv.components(separatedBy: "\r\n").filter { !$0.isEmpty }
        #expect(lines.count == 1 + 3 + 1)
        #expect(csv.contains("\"<b>promo\"\"&\""))
        #expect(csv.contains("\"reply=210;=cmd,\"\"x\"\"=90\""))
        // A cell a spreadsheet would run as a formula starts with a quote mark instead.
        #expect(CSVField.escape("=HYPERLINK(\"x\")") == "\"'=HYPERLINK(\"\"x\"\")\"")
        #expect(CSVField.escape("-0.25") == "-0.25")
    }

    /// Every device-named cell of the report CSV (group value, category, actions) is written as
    /// text, while the numbers, negative differences included, stay numbers.
    @Test func csvDefusesFormulaInjectionInEveryNamedCell() throws {
        var counts: [ReportCountRow] = [], actions: [ReportActionRow] = []
        for name in FormulaInjection.names {
            counts.append(ReportCountRow(group: name, day: "2026-11-02", category: name, hasMedia: true, delivered: 400, opens: 40))
            counts.append(ReportCountRow(group: name, day: "2026-11-02", category: name, hasMedia: false, delivered: 400, opens: 80))
            actions.append(ReportActionRow(group: name, category: name, action: name, count: 5))
        }
        let scope = ReportScope(appId: 1, from: Timestamp(iso8601: "2026-11-02")!, to: Timestamp(iso8601: "2026-11-03")!, groupBy: .campaign)
        let report = EngagementReportBuilder().build(app: "sample", scope: scope, data: ReportData(days: ["2026-11-02"], counts: counts,
                                                     actions: actions, histograms: [], grouped: true), manifests: [:],
                                                     generatedAt: Timestamp(iso8601: "2026-11-03T08:00:00Z")!)
        let csv = CSVReportRenderer().render(report)
        #expect(FormulaInjection.liveCells(csv) == [])
        #expect(FormulaInjection.neutralised(csv) == Set(FormulaInjection.names))
        // Rich loses by 10 pp in every category: the difference is a negative number, not text.
        let rows = FormulaInjection.cells(csv)
        let column = try #require(rows.first?.firstIndex(of: "difference_pp"))
        #expect(rows.dropFirst().contains { $0[column] == "-10.0" })
    }

    /// `since` counts calendar days (up to 10 years) or hours, in either case, through DurationText.
    @Test func sinceTakesDaysOrHours() {
        #expect(ReportRequest.parseSince("7d")?.days == 7 && ReportRequest.parseSince("7D")?.days == 7)
        #expect(ReportRequest.parseSince("12H")?.hours == 12 && ReportRequest.parseSince("87600h")?.hours == 87_600)
        #expect(ReportRequest.parseSince("3650d")?.days == 3_650)
        for bad in ["0d", "3651d", "87601h", "30m", "2w", "0", "7", "d", "-1d", "1.5d", "7 d"] {
            #expect(ReportRequest.parseSince(bad) == nil, "\(bad)")
        }
        #expect(throws: ReportError.self) { try ReportRequest(options: [("since", "2w")]) }
    }

    @Test func markdownAndHTMLEscapeCategoryNames() {
        let report = SampleReport.make()
        let html = HTMLReportRenderer().render(report)
        #expect(!html.contains("<b>promo"))
        #expect(html.contains("&lt;b&gt;promo&quot;&amp;"))
        #expect(html.contains("class=\"chart chart-engagement\"") && html.contains("class=\"chart chart-uplift\"")
            && html.contains("class=\"chart chart-daily\""))
        #expect(!html.contains("<script"))
        let stripped = html.replacingOccurrences(of: "http://www.w3.org/2000/svg", with: "")
        #expect(!stripped.contains("http:") && !stripped.contains("https:") && !stripped.contains("src="), "no external references")
        let markdown = MarkdownReportRenderer().render(report)
        #expect(markdown.contains("\\<b\\>promo"))
    }

    /// The JSON validates against the checked-in schema (python3-jsonschema, Draft 2020-12).
    @Test(arguments: [nil, ReportDimension.platform])
    func jsonMatchesTheSchema(groupBy: ReportDimension?) throws {
        let json = JSONReportRenderer().render(SampleReport.make(groupBy: groupBy))
        try SchemaCheck.validate(json)
        // And a document that breaks it is caught, so the check can fail.
        let broken = json.replacingOccurrences(of: "\"measurable\": false", with: "\"measurable\": 0")
        #expect(broken != json)
        #expect(throws: SchemaCheck.Failure.self) { try SchemaCheck.validate(broken) }
    }

    @Test func anAppWithNoEventsStillRendersEverywhere() throws {
        let scope = ReportScope(appId: 1, from: Timestamp(iso8601: "2026-11-02")!, to: Timestamp(iso8601: "2026-11-03")!)
        let report = EngagementReportBuilder().build(app: "empty", scope: scope,
                                                     data: ReportData(days: ["2026-11-02"]),
                                                     manifests: [:], generatedAt: Timestamp(microseconds: 0))
        #expect(report.categories.isEmpty && report.overall.delivered == 0 && report.overall.engagementRate == nil)
        #expect(!report.overall.uplift.sufficient)
        try SchemaCheck.validate(JSONReportRenderer().render(report))
        for format in ReportOutputFormat.allCases { #expect(!format.render(report).isEmpty) }
        #expect(HTMLReportRenderer().render(report).contains("chart-daily"))
    }

    @Test func jsonNamesAreTheDocumentedOnes() throws {
        let json = JSONReportRenderer().json(SampleReport.make())
        let top = try #require(json.objectValue).members.map(\.key)
        for name in ["schemaVersion", "app", "from", "to", "categories", "overall"] { #expect(top.contains(name)) }
        let category = try #require(json["categories"]?.arrayValue?.first?.objectValue).members.map(\.key)
        for name in ["category", "delivered", "sent", "opens", "actions", "textReplies", "dismiss", "engagementRate", "base",
                     "rich", "textOnly", "uplift", "timeToResponse"] {
            #expect(category.contains(name), "missing \(name)")
        }
        let uplift = try #require(json["categories"]?.arrayValue?.first?["uplift"]?.objectValue).members.map(\.key)
        #expect(Array(uplift.prefix(6)) == ["method", "difference", "ci95", "relativeLift", "pValue", "sufficient"])
        for name in ["adjusted", "confounded", "minimumDetectableDifference", "daysToDetect"] { #expect(uplift.contains(name)) }
    }
}

/// Runs python3's jsonschema on a document against schemas/engagement-report.v3.json.
enum SchemaCheck {
    struct Failure: Error, CustomStringConvertible { var description: String }

    static var schemaPath: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("schemas/engagement-report.v3.json").path
    }

    static func validate(_ document: String) throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("report-\(UUID().uuidString).json")
        try document.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let script = """
        import json, sys
        try:
            import jsonschema
        except ImportError:
            print("python3-jsonschema is missing: scripts/install-deps.sh python3-jsonschema"); sys.exit(3)
        schema = json.load(open(sys.argv[1])); doc = json.load(open(sys.argv[2]))
        jsonschema.Draft202012Validator.check_schema(schema)
        errors = list(jsonschema.Draft202012Validator(schema).iter_errors(doc))
        for e in errors[:5]: print(list(e.absolute_path), e.message)
        sys.exit(1 if errors else 0)
        """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script, schemaPath, file.path]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        if process.terminationStatus == 3 { Issue.record(Comment(rawValue: output)); throw Failure(description: output) }
        guard process.terminationStatus == 0 else { throw Failure(description: output) }
    }
}
