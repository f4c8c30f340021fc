import Foundation
import TapwireStatistics
import Testing
import TapwireCore
import TapwireServer
import TapwireStore
import TapwireTestSupport

/// The manifest of issue 4's scenario.
let scenarioManifestJSON = #"""
{"appVersion": "3.2.1", "categories": [
  {"identifier": "message", "options": ["customDismissAction"], "actions": [
    {"identifier": "reply", "title": "Reply", "options": ["foreground"], "textInput": true},
    {"identifier": "delete", "title": "Delete", "options": ["destructive"]}]},
  {"identifier": "social_post", "options": [], "actions": [{"identifier": "like", "options": []}]}]}
"""#

/// Events of one shape, `count` times: a delivered when `action` is nil, else a response.
func events(_ category: String, action: String? = nil, count: Int, registered: Bool? = true) -> [JSONValue] {
    (0..<count).map { _ in
        var extra: [(String, JSONValue)] = []
        if let action { extra.append(("actionIdentifier", .string(action))) }
        if action == "reply" { extra.append(("userTextLength", 12)) }
        if let registered { extra.append(("categoryRegistered", .bool(registered))) }
        return TestBatch.event(action == nil ? "delivered" : "response", category: category, extra)
    }
}

func context(_ version: String, platform: String = "iOS") -> [(String, JSONValue)] {
    [("appVersion", .string(version)), ("platform", .string(platform))]
}

/// Posts the scenario: healthy traffic plus each problem of the issue once.
func postScenario(_ client: HTTPTestClient, writeKey: String) throws {
    let manifest = try client.post("/v1/categories", key: writeKey, json: Array(scenarioManifestJSON.utf8))
    #expect(manifest.status == 200, "\(manifest.text)")
    let healthy = events("message", count: 5) + events("message", action: "reply", count: 2)
        + events("message", action: SystemAction.dismiss, count: 1) + events("message", action: SystemAction.open, count: 2)
        + events("social_post", count: 4) + events("social_post", action: "like", count: 1)
    let problems = events("Message", count: 3) + events("socialpost", count: 2) + events("promo", count: 4, registered: false)
        + events("social_post", action: "share", count: 2) + events("social_post", action: SystemAction.dismiss, count: 1)
    let batch = try client.post("/v1/batch", key: writeKey, json: TestBatch.body(healthy + problems, context: context("3.2.1")))
    #expect(batch.status == 200 && batch.json?["accepted"]?.numberValue?.integer == 27, "\(batch.text)")
    // A version that never posted a manifest.
    let unverified = events("message", count: 3) + events("message", action: "reply", count: 1)
    let old = try client.post("/v1/batch", key: writeKey, json: TestBatch.body(unverified, context: context("3.1.0")))
    #expect(old.status == 200 && old.json?["accepted"]?.numberValue?.integer == 4, "\(old.text)")
}

/// kind|category|action|count|versions|suggestion for each finding, in the report's order.
func summary(_ findings: [JSONValue]) -> [String] {
    findings.map { f in
        [f["kind"]?.stringValue ?? "?", f["category"]?.stringValue ?? "?", f["action"]?.stringValue ?? "-",
         String(f["count"]?.numberValue?.integer ?? -1),
         (f["appVersions"]?.arrayValue ?? []).compactMap(\.stringValue).joined(separator: ","),
         f["suggestion"]?.stringValue ?? "-"].joined(separator: "|")
    }
}

@Suite struct MismatchScenarioTests {
    @Test func theIssueScenarioThroughTheHTTPAPI() throws {
        let server = try TestCollector.start()
        let app = try server.database.createApp("scenario")
        let client = server.client()
        try postScenario(client, writeKey: app.writeKey.text)

        let response = try client.get("/v1/reports/mismatches?app=scenario&since=1h", key: app.readKey.text)
        #expect(response.status == 200, "\(response.text)")
        #expect(response.headers["content-type"]?.hasPrefix("application/json") == true)
        let findings = try #require(response.json?["findings"]?.arrayValue)
        #expect(Set(summary(findings)) == [
            "case_mismatch|Message|-|3|3.2.1|message",
            "near_miss|socialpost|-|2|3.2.1|social_post",
            "unknown_category|promo|-|4|3.2.1|-",
            "unregistered_action|social_post|share|2|3.2.1|-",
            "impossible_dismiss|social_post|\(SystemAction.dismiss)|1|3.2.1|-",
            "no_manifest|message|-|3|3.1.0|-",
        ])
        #expect(findings.count == 6, "nothing else is flagged: \(summary(findings))")
        // Errors first; every finding has its platform and times.
        #expect(findings.prefix(3).allSatisfy { $0["severity"]?.stringValue == "error" })
        for f in findings {
            #expect(f["platforms"]?.arrayValue == [.string("iOS")])
            #expect(f["firstSeen"]?.stringValue.flatMap(Timestamp.init(iso8601:)) != nil)
        }
        let noManifest = try #require(findings.first { $0["kind"]?.stringValue == "no_manifest" })
        #expect(noManifest["message"]?.stringValue?.contains("cannot be verified") == true)

        // The same findings as CSV and HTML.
        let csv = try client.request("GET", "/v1/reports/mismatches?app=scenario&since=1h&format=csv",
                                     headers: ["Authorization": HTTPTestClient.basic(app.readKey.text)])
        #expect(csv.status == 200 && csv.headers["content-type"]?.hasPrefix("text/csv") == true)
        #expect(csv.text.split(separator: "\r\n").count == 7 && csv.text.contains("case_mismatch,error,Message,,3,3.2.1,iOS"))
        let html = try client.request("GET", "/v1/reports/mismatches?app=scenario&since=1h",
                                      headers: ["Authorization": HTTPTestClient.basic(app.readKey.text), "Accept": "text/html"])
        #expect(html.status == 200 && html.text.contains("<td>socialpost</td>") && html.text.contains("<td>social_post</td>"))
        let errorsOnly = try client.get("/v1/reports/mismatches?since=1h&minSeverity=error", key: app.readKey.text)
        #expect(errorsOnly.json?["findings"]?.arrayValue?.count == 3)
    }

    @Test func accessAndBadQueries() throws {
        let server = try TestCollector.start()
        let app = try server.database.createApp("access")
        let other = try server.database.createApp("other")
        let client = server.client()
        #expect(try client.get("/v1/reports/mismatches?app=access", key: app.writeKey.text).status == 403)
        #expect(try client.get("/v1/reports/mismatches?app=access").status == 401)
        #expect(try client.get("/v1/reports/mismatches?app=access", key: other.readKey.text).status == 403)
        for (query, hint) in [("since=yesterday", "since must be"), ("since=1h&until=2h", "before until"), ("format=xml", "format must"),
                              ("minSeverity=loud", "minSeverity"), ("sinc=1h", "unknown query parameter"), ("since=500d", "400 days"),
                              ("since=9999999999999d", "since must be"), ("since=1h&until=9223372036854775807w", "until must be"),
                              ("since=\(DurationText.maximumSeconds)s", "400 days")] {
            let r = try client.get("/v1/reports/mismatches?\(query)", key: app.readKey.text)
            #expect(r.status == 400 && r.errorCode == "bad_request" && r.text.contains(hint), "\(query): \(r.text)")
        }
        let empty = try client.get("/v1/reports/mismatches", key: app.readKey.text)
        #expect(empty.status == 200 && empty.text == #"{"findings":[]}"#)
    }

    @Test func metricsCountMismatchesAndPassPromtool() throws {
        let server = try TestCollector.start()
        let app = try server.database.createApp("metrics")
        let client = server.client()
        try postScenario(client, writeKey: app.writeKey.text)
        let name = MismatchMetrics.events
        // A batch that misses the manifest cache is counted once its manifests are read, on a
        // database thread: wait for every batch's count, not only the first.
        #expect(eventually { server.metrics.value(name, ["metrics", "no_manifest", "message"]) == 4 && server.metrics.seriesCount(name) == 6 })
        #expect(eventually { server.metrics.value(name, ["metrics", "impossible_dismiss", "social_post"]) == 1
            && server.metrics.value(name, ["metrics", "unknown_category", "promo"]) == 4 })
        #expect(server.metrics.value(name, ["metrics", "no_manifest", "message"]) == 4)
        #expect(server.metrics.value(name, ["metrics", "case_mismatch", "Message"]) == 3)
        #expect(server.metrics.value(name, ["metrics", "near_miss", "socialpost"]) == 2)
        #expect(server.metrics.value(name, ["metrics", "unknown_category", "promo"]) == 4)
        #expect(server.metrics.value(name, ["metrics", "unregistered_action", "social_post"]) == 2)
        #expect(server.metrics.value(name, ["metrics", "impossible_dismiss", "social_post"]) == 1)
        #expect(server.metrics.seriesCount(name) == 6)

        // A retry of a stored batch counts nothing again.
        let body = TestBatch.body(events("promo", count: 2), context: context("3.2.1"))
        #expect(try client.post("/v1/batch", key: app.writeKey.text, json: body).status == 200)
        #expect(try client.post("/v1/batch", key: app.writeKey.text, json: body).json?["duplicates"]?.numberValue?.integer == 2)
        #expect(eventually { server.metrics.value(name, ["metrics", "unknown_category", "promo"]) == 6 })
        Thread.sleep(forTimeInterval: 0.2)
        #expect(server.metrics.value(name, ["metrics", "unknown_category", "promo"]) == 6)

        let metrics = try client.get("/metrics")
        #expect(metrics.text.contains(#"tapwire_mismatch_events_total{app="metrics",kind="case_mismatch",category="Message"} 3"#))
        // When the series was created, for the alert rules (docs/alerting.md).
        let created = try #require(server.metrics.created(name, ["metrics", "case_mismatch", "Message"]))
        #expect(abs(created - Timestamp.now.secondsSince1970) < 600)
        let line = metrics.text.split(separator: "\n").first { $0.hasPrefix(#"tapwire_mismatch_events_created{app="metrics",kind="case_mismatch",category="Message"} "#) }
        #expect(line.flatMap { Double($0.split(separator: " ").last ?? "") } == created, "\(metrics.text)")
        let check = try Promtool.run(["check", "metrics"], stdin: metrics.body)
        #expect(check.status == 0, "promtool check metrics: \(check.output)")
    }

    @Test func aHundredThousandRandomCategoriesStayUnderTheCap() throws {
        let server = try TestCollector.start { $0.rateLimitPerSecond = 0 }
        let app = try server.database.createApp("flood")
        let client = server.client()
        #expect(try client.post("/v1/categories", key: app.writeKey.text, json: Array(scenarioManifestJSON.utf8)).status == 200)
        var rng = SeededGenerator(seed: 100_000)
        let name = MismatchMetrics.events
        // The mismatch family's own lines (each series and its `_created` line): what the flood
        // could grow. Other families (request timings by status, commits) grow with how the run
        // went, which a slow machine changes, so they are not counted.
        let created = String(name.dropLast("_total".count)) + "_created{"
        func familyBytes(_ text: String) -> Int {
            text.split(separator: "\n").filter { $0.hasPrefix(name + "{") || $0.hasPrefix(created) }
                .reduce(0) { $0 + $1.utf8.count + 1 }
        }
        let before = familyBytes(try client.get("/metrics").text)
        for _ in 0..<50 {
            let batch = (0..<2000).map { _ in
                TestBatch.event(category: "junk_" + String(rng.next(), radix: 36), [("categoryRegistered", false)])
            }
            let r = try client.post("/v1/batch", key: app.writeKey.text, json: TestBatch.body(batch, context: context("3.2.1")))
            #expect(r.status == 200 && r.json?["accepted"]?.numberValue?.integer == 2000, "\(r.text)")
        }
        // Every event is counted, the first categories under their own name, the rest as "other".
        #expect(eventually(timeout: 30) {
            let other = server.metrics.value(name, ["flood", "unknown_category", "other"]) ?? 0
            return other + Double(server.metrics.seriesCount(name) - 1) == 100_000
        })
        #expect(server.metrics.seriesCount(name) == MismatchMetrics.maxSeries + 1)
        let text = try client.get("/metrics").text
        let lines = text.split(separator: "\n").filter { $0.hasPrefix(name + "{") }
        #expect(lines.count == MismatchMetrics.maxSeries + 1)
        // The family grew by about the cap's worth of lines, not by 100,000.
        #expect(familyBytes(text) - before < (MismatchMetrics.maxSeries + 1) * 240)
        // The report still knows every category exactly: the rollup is not capped.
        let folder = try server.database.connect()
        defer { folder.close() }
        try RollupStore().fold(on: folder)
        let distinct = try server.database.query("SELECT count(DISTINCT category) FROM mismatch_usage_daily").scalar
        #expect(distinct == "100000")
    }
}

/// Runs promtool (Debian's `prometheus` package; scripts/test-prometheus-rules.sh installs it).
enum Promtool {
    struct Result {
        var status: Int32
        var output: String
    }

    static func run(_ arguments: [String], stdin: [UInt8]) throws -> Result {
        let candidates = ["/usr/bin/promtool", "/usr/local/bin/promtool"]
        guard let path = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            return Result(status: 127, output: "promtool is not installed: run scripts/test-prometheus-rules.sh (installs Debian's prometheus)")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = output
        try process.run()
        input.fileHandleForWriting.write(Data(stdin))
        try input.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(status: process.terminationStatus, output: String(decoding: data, as: UTF8.self))
    }
}

@Suite struct MismatchCSVFormulaInjectionTests {
    /// Hostile category and action names come back as text in the mismatch CSV export.
    @Test func mismatchCSVDefusesHostileNames() throws {
        let csv = try FormulaInjection.exportAfterTraffic("/v1/reports/mismatches?since=1h&format=csv")
        #expect(csv.status == 200, "\(csv.text.prefix(300))")
        #expect(FormulaInjection.liveCells(csv.text) == [])
        #expect(FormulaInjection.neutralised(csv.text) == Set(FormulaInjection.names))
    }
}
