import Foundation
import TapwireStatistics
import Testing
import TapwireCore
import TapwireReport
import TapwireStore
import TapwireTestSupport

/// The HTML report opened in headless Chromium (Debian's `chromium`): it renders, draws the
/// three charts, and the browser logs no console error (the page's CSP would log any fetch).
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

    @Test func rendersWithChartsAndNoConsoleErrors() throws {
        let browser = try #require(Self.chromium(), "chromium is not installed: scripts/install-deps.sh chromium")
        // A real report: telemetry posted over HTTP, read from the rollups.
        let sample = try SampleApp()
        defer { sample.collector.stop() }
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
        for log in [shot.stderr, dom.stderr] {
            let consoleErrors = log.split(separator: "\n").filter {
                $0.contains("CONSOLE") || $0.contains("Uncaught") || $0.contains("Refused to") || $0.contains("Failed to load")
            }
            #expect(consoleErrors.isEmpty, "console errors: \(consoleErrors.joined(separator: "\n"))")
        }
    }
}
