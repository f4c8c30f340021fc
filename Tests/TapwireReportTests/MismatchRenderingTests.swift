import Testing
import TapwireCore
import TapwireReport
import TapwireTestSupport

private let t0 = Timestamp(iso8601: "2026-12-01T10:00:00Z")!
private func at(_ minutes: Int) -> Timestamp { t0.adding(seconds: Double(minutes * 60)) }

/// The mismatch report's JSON, CSV, table and HTML (MismatchReport+Rendering.swift), over findings the
/// detector made from deliveries of hostile, miscased and unknown categories.
@Suite struct MismatchReportRenderingTests {
    let report: MismatchReport = {
        func delivered(_ category: String, _ count: Int64, first: Int = 0, last: Int = 0) -> CategoryUsage {
            CategoryUsage(appVersion: "3.2.1", platform: "iOS", type: .delivered, category: category, registration: .registered,
                          count: count, firstSeen: at(first), lastSeen: at(last))
        }
        let manifest = Manifest(appVersion: "3.2.1", categories: [ManifestCategory(identifier: "message"),
                                                                  ManifestCategory(identifier: "social_post")])
        let findings = MismatchDetector().findings(usage: [
            delivered("=cmd|' /C calc'!A0", 2, first: 1, last: 2), delivered("Message", 5, first: 1, last: 3),
            delivered("message", 1), delivered("social_post", 1), delivered("<script>x</script>", 1),
        ], manifests: ["3.2.1": manifest])
        return MismatchReport(app: "demo", since: t0, until: at(60), findings: findings)
    }()

    @Test func jsonHasTheDocumentedShape() throws {
        let parsed = try JSONParser().parse(report.json.serialized())
        let first = try #require(parsed["findings"]?.arrayValue?.first?.objectValue)
        #expect(first.members.prefix(10).map(\.key) == ["kind", "severity", "category", "action", "count", "appVersions",
                                                       "platforms", "firstSeen", "lastSeen", "suggestion"])
        #expect(first["kind"]?.stringValue == "case_mismatch" && first["count"]?.numberValue?.integer == 5)
        #expect(first["action"]?.isNull == true && first["suggestion"]?.stringValue == "message")
        #expect(first["firstSeen"]?.stringValue == at(1).description)
    }

    @Test func csvQuotesAndDefusesFormulas() {
        let lines = report.csv.split(separator: "\r\n", omittingEmptySubsequences: true)
        #expect(lines.first == Substring(MismatchReport.csvHeader.joined(separator: ",")))
        #expect(lines.count == 4)
        #expect(report.csv.contains("'=cmd|' /C calc'!A0"))
        #expect(!report.csv.contains(",=cmd"))
    }

    @Test func htmlEscapesDeviceStrings() {
        #expect(report.htmlPage.contains("&lt;script&gt;x&lt;/script&gt;"))
        #expect(!report.htmlPage.contains("<script>"))
        #expect(report.htmlPage.hasPrefix("<!DOCTYPE html>"))
    }

    @Test func tableAndFiltering() {
        #expect(report.table.contains("case_mismatch") && report.table.contains("3 findings"))
        #expect(report.filtered(minimumSeverity: .error).findings.count == 3)
        let none = MismatchReport(app: "demo", since: t0, until: at(1), findings: [])
        #expect(none.table.hasPrefix("No category mismatches"))
        #expect(none.json.serialized() == #"{"findings":[]}"#)
    }

    /// Every cell a device can name (category, action, appVersions, platforms, suggestion and
    /// message) is written as text: read back by an RFC 4180 reader written apart from the
    /// product's writer, each is the hostile name behind a quote mark, and none would run.
    @Test func csvDefusesHostileCategoriesAndActions() {
        let names = FormulaInjection.names + ["-cmd", "=1+1", "-", "-1.", "-inf", "-0x1p3", "- 1"]
        let findings = names.map { name in
            MismatchFinding(kind: .unregisteredAction, severity: .error, category: name, action: name, count: 1, appVersions: [name],
                            platforms: [name], firstSeen: t0, lastSeen: t0, suggestion: name, message: name)
        }
        let csv = MismatchReport(app: "demo", since: t0, until: at(60), findings: findings).csv
        let rows = Array(FormulaInjection.cells(csv).dropFirst())
        #expect(rows.count == names.count)
        for (name, row) in zip(names, rows) {
            let cell = "'" + name
            let expected = ["unregistered_action", "error", cell, cell, "1", cell, cell, t0.description, t0.description, cell, cell]
            #expect(row == expected, "\(name.debugDescription)")
        }
        #expect(FormulaInjection.liveCells(csv).isEmpty)
        #expect(FormulaInjection.neutralised(csv) == Set(FormulaInjection.names))
    }
}

/// The webhook's messages (FindingMessages.swift).
@Suite struct FindingMessageTests {
    @Test func slackMessageEscapesControlSequences() throws {
        let f = MismatchFinding(kind: .unknownCategory, severity: .error, category: "<!channel>", count: 4, appVersions: ["1.0"],
                                platforms: ["iOS"], firstSeen: t0, lastSeen: t0, message: "m & m")
        let payload = FindingMessages.payload(app: "demo", version: "1.0", findings: [Finding(f)], family: CategoryMismatchFamily())
        let text = try #require(payload["text"]?.stringValue)
        #expect(text.contains("&lt;!channel&gt;") && !text.contains("<!channel>") && text.contains("m &amp; m"))
        #expect(text.contains("4 affected on iOS"))
        #expect(payload["blocks"]?.arrayValue?.count == 1)
    }

    /// A message per key: a finding on two versions makes two; two unregistered actions of one
    /// category and version make one, naming both, counting both.
    @Test func findingsSharingAKeyMakeOneMessage() throws {
        let findings = [
            MismatchFinding(kind: .unknownCategory, severity: .error, category: "promo", count: 3, appVersions: ["1.0", "1.1"],
                            platforms: ["iOS"], firstSeen: t0, lastSeen: t0, message: "m"),
            MismatchFinding(kind: .unregisteredAction, severity: .warning, category: "social_post", action: "share", count: 1,
                            appVersions: ["1.0"], platforms: ["iOS"], firstSeen: at(5), lastSeen: t0, message: "a"),
            MismatchFinding(kind: .unregisteredAction, severity: .warning, category: "social_post", action: "repost", count: 2,
                            appVersions: ["1.0"], platforms: ["iOS"], firstSeen: at(1), lastSeen: t0, message: "b"),
        ].map(Finding.init)
        let messages = FindingMessages.outbox(appId: 7, app: "demo", findings: findings, family: CategoryMismatchFamily())
        #expect(messages.map { "\($0.key.appVersion)|\($0.key.kind)|\($0.key.category)" }
                == ["1.0|unknown_category|promo", "1.1|unknown_category|promo", "1.0|unregistered_action|social_post"])
        let share = messages[2]
        #expect(share.payload.contains("repost") && share.payload.contains("3 affected"))
        #expect(share.firstSeen == at(1))
        #expect(messages.allSatisfy { $0.key.appId == 7 })
    }
}
