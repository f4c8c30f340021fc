import Foundation
import TapwireStatistics
import Testing
import TapwireCore
@testable import TapwireReport
import TapwireStore
import TapwireTestSupport

/// The HTML report opened in headless Chromium (Debian's `chromium`): it renders, draws the
/// three charts and the holdout charts, and the browser logs no console error (the page's CSP
/// would log any fetch). The holdout charts are also checked in the screenshot's pixels.
@Suite("HTML report in a browser")
struct HTMLBrowserTests {
    static func chromium() -> String? {
        for path in ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"] where FileManager.default.isExecutableFile(atPath: path) {
            return path
        }
        return nil
    }

    static func run(_ executable: String, _ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: stdout, as: UTF8.self), String(decoding: stderr, as: UTF8.self))
    }

    /// Two holdout campaigns over the ten days up to the sample's end: "winter <sale> & "more""
    /// (a fifth held out, 15% against 5% converted within a day) and "broken-split" (a half
    /// stated, 30% logged held out), each device's conversion an hour after its assignment.
    static func postHoldouts(_ sample: SampleApp) throws {
        var rng = SeededGenerator(seed: 3_636)
        var events: [JSONValue] = []
        for d in 0..<10 {
            let day = sample.to.adding(microseconds: Int64(d - 10) * ReportFixtures.day)
            for i in 0..<300 {
                let at = day.adding(seconds: Double(i * 280 + 60))
                let heldOut = Double.random(in: 0..<1, using: &rng) < 0.2
                let device = "holdout-\(d)-\(i)"
                events.append(TestBatch.assignment(device: device, campaign: "winter <sale> & \"more\"", heldOut: heldOut, share: 0.2, at: at, rng: &rng))
                if Double.random(in: 0..<1, using: &rng) < (heldOut ? 0.05 : 0.15) {
                    let t = at.adding(seconds: 3_600)
                    events.append(.object([("eventId", .string(EventID.v7(at: t, using: &rng).description)), ("type", "conversion"),
                                           ("timestamp", .string(t.description)), ("name", "purchase"), ("deviceId", .string(device))]))
                }
                if i < 60 {
                    events.append(TestBatch.assignment(device: "broken-\(d)-\(i)", campaign: "broken-split", heldOut: i % 10 < 3, share: 0.5,
                                                       at: at, rng: &rng))
                }
            }
        }
        let client = sample.collector.client()
        for chunk in stride(from: 0, to: events.count, by: 500) {
            let json = try ReportFixtures.post(client, key: sample.app.writeKey.text, TestBatch.body(Array(events[chunk..<min(events.count, chunk + 500)])))
            #expect(json["rejected"]?.arrayValue?.isEmpty ?? true, "\(json)")
        }
    }

    @Test func rendersWithChartsAndNoConsoleErrors() throws {
        let browser = try #require(Self.chromium(), "chromium is not installed: scripts/install-deps.sh chromium")
        // A real report: telemetry posted over HTTP, read from the rollups.
        let sample = try SampleApp()
        defer { sample.collector.stop() }
        try Self.postHoldouts(sample)
        let report = try ReportFixtures.report(sample.collector.database, app: sample.app, from: sample.from, to: sample.to,
                                               minimum: MinimumSample(perSide: 20))
        let html = HTMLReportRenderer().render(report)
        let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent(".build/test-artifacts")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let page = directory.appendingPathComponent("engagement-report.html")
        let screenshot = directory.appendingPathComponent("engagement-report.png")
        try html.write(to: page, atomically: true, encoding: .utf8)
        try? FileManager.default.removeItem(at: screenshot)
        let profile = FileManager.default.temporaryDirectory.appendingPathComponent("chromium-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: profile) }
        let common = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                      "--user-data-dir=\(profile)", "--enable-logging=stderr", "--v=0", "--window-size=1100,2600"]
        let shot = try Self.run(browser, common + ["--screenshot=\(screenshot.path)", page.absoluteString])
        #expect(shot.status == 0, "chromium failed: \(shot.stderr.suffix(2000))")
        let png = try Data(contentsOf: screenshot)
        #expect(png.count > 20_000, "the screenshot is \(png.count) bytes: blank?")
        #expect(Array(png.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        let dom = try Self.run(browser, common + ["--dump-dom", page.absoluteString])
        #expect(dom.status == 0)
        for chart in ["chart-engagement", "chart-uplift", "chart-daily"] {
            #expect(dom.stdout.contains("class=\"chart \(chart)\""), "the browser's DOM lacks the \(chart) chart")
        }
        #expect(dom.stdout.contains("<rect class=\"bar\""), "no bars drawn")
        #expect(dom.stdout.contains("class=\"whisker\""), "no CI whiskers drawn")
        // Holdouts: a chart per campaign, the shown one with its band and the day decided, the
        // broken split's saying why it has none; the campaign's name escaped.
        try #require(report.holdouts.map(\.campaign) == ["broken-split", "winter <sale> & \"more\""])
        #expect(report.holdouts[1].withheld == nil && report.holdouts[1].anytimeValid?.decidedOn != nil && report.holdouts[0].srm.mismatch)
        #expect(dom.stdout.components(separatedBy: "class=\"chart chart-holdout\"").count - 1 == 2)
        #expect(dom.stdout.components(separatedBy: "<polygon class=\"band\"").count - 1 == 1)
        #expect(dom.stdout.components(separatedBy: "<polyline class=\"treated\"").count - 1 == 2)
        #expect(dom.stdout.contains("<line class=\"decided\"") && dom.stdout.contains("Difference and anytime-valid band withheld:"))
        #expect(dom.stdout.contains("winter &lt;sale&gt; &amp; \"more\""))
        // The holdout section alone, in the page's own head, as Chromium paints it: the band's
        // fill, both arms' lines and the decided marker are there in pixels (no CSS, no colour).
        let head = try #require(html.range(of: "<body>")), section = try #require(html.range(of: "<section class=\"holdouts\">"))
        let end = try #require(html.range(of: "</section>", range: section.upperBound..<html.endIndex))
        let holdoutPage = directory.appendingPathComponent("engagement-report-holdouts.html")
        let holdoutShot = directory.appendingPathComponent("engagement-report-holdouts.png")
        try (String(html[..<head.upperBound]) + String(html[section.lowerBound..<end.upperBound]) + "</body></html>\n")
            .write(to: holdoutPage, atomically: true, encoding: .utf8)
        try? FileManager.default.removeItem(at: holdoutShot)
        let painted = try Self.run(browser, common.filter { !$0.hasPrefix("--window-size") }
                                   + ["--window-size=1100,1400", "--screenshot=\(holdoutShot.path)", holdoutPage.absoluteString])
        #expect(painted.status == 0, "chromium failed: \(painted.stderr.suffix(2000))")
        let image = try PNGImage(Array(try Data(contentsOf: holdoutShot)))
        #expect(image.width == 1100 && image.height == 1400)
        // The band's colour: the band (thousands of pixels), beyond the two legends' swatches (under 600).
        #expect(image.count("#ddd6fe") > 5_000, "the anytime-valid band is not painted in its colour")
        #expect(image.count(HoldoutChart.treatedColour, tolerance: 24) > 150, "the treated line is not painted")
        #expect(image.count(HoldoutChart.heldOutColour, tolerance: 24) > 100, "the held-out line is not painted")
        #expect(image.count("#b45309", tolerance: 24) > 20, "the decided marker is not painted")
        for log in [shot.stderr, dom.stderr, painted.stderr] {
            let consoleErrors = log.split(separator: "\n").filter {
                $0.contains("CONSOLE") || $0.contains("Uncaught") || $0.contains("Refused to") || $0.contains("Failed to load")
            }
            #expect(consoleErrors.isEmpty, "console errors: \(consoleErrors.joined(separator: "\n"))")
        }
    }
}
