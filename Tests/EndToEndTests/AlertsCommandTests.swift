import Foundation
import Testing
import TapwireCore
import TapwireTestSupport

/// `tapwire alerts` as cron and CI run it: the built binary against a real database.
@Suite struct AlertsCommandTests {
    /// The binary `make test` built (TAPWIRE_BINARY), else the debug build in this checkout.
    static var binary: String {
        ProcessInfo.processInfo.environment["TAPWIRE_BINARY"] ?? FileManager.default.currentDirectoryPath + "/.build/debug/tapwire"
    }

    struct Run {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    static func tapwire(_ arguments: [String]) throws -> Run {
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            throw CLIMissing(path: binary)
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment.removeValue(forKey: "TAPWIRE_DATABASE_URL")
        process.environment = environment
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Run(status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
                   stderr: String(decoding: stderr, as: UTF8.self))
    }

    struct CLIMissing: Error, CustomStringConvertible {
        var path: String
        var description: String { "no tapwire binary at \(path): run `swift build` first or set TAPWIRE_BINARY" }
    }

    /// Posts one batch with `write` through the collector.
    static func post(_ server: TestCollector, _ key: String, _ events: [JSONValue], version: String = "1.0") throws {
        let r = try server.client().post("/v1/batch", key: key,
                                         json: TestBatch.body(events, context: [("appVersion", .string(version)), ("platform", "iOS")]))
        #expect(r.status == 200, "\(r.text)")
    }

    static let manifest = #"{"appVersion":"1.0","categories":[{"identifier":"message","options":[],"actions":[{"identifier":"reply","textInput":true}]}]}"#

    @Test func exitCodesFollowTheSeverity() throws {
        let server = try TestCollector.start()
        let url = server.database.url
        let clean = try server.database.createApp("clean")
        let warned = try server.database.createApp("warned")
        let broken = try server.database.createApp("broken")
        for app in [clean, warned, broken] {
            #expect(try server.client().post("/v1/categories", key: app.writeKey.text, json: Array(Self.manifest.utf8)).status == 200)
        }
        try Self.post(server, clean.writeKey.text, [TestBatch.event(category: "message")])
        try Self.post(server, warned.writeKey.text, [TestBatch.event(category: "message"),
                                                     TestBatch.event("response", category: "message", [("actionIdentifier", "archive")])])
        try Self.post(server, broken.writeKey.text, [TestBatch.event(category: "message"), TestBatch.event(category: "Message")])

        // Nothing to alert on: 0, and says so.
        let ok = try Self.tapwire(["alerts", "--app", "clean", "--since", "24h", "--database-url", url])
        #expect(ok.status == 0, "\(ok.stderr)")
        #expect(ok.stdout.hasPrefix("No category mismatches for clean"))

        // A warning: 1 at the default (warning), 0 when only errors count.
        let warning = try Self.tapwire(["alerts", "--app", "warned", "--database-url", url])
        #expect(warning.status == 1)
        #expect(warning.stdout.contains("unregistered_action") && warning.stdout.contains("archive"))
        #expect(try Self.tapwire(["alerts", "--app", "warned", "--min-severity", "error", "--database-url", url]).status == 0)

        // An error, as JSON.
        let json = try Self.tapwire(["alerts", "--app", "broken", "--since", "2h", "--format", "json", "--database-url", url])
        #expect(json.status == 1)
        let findings = try #require(try JSONParser().parse(json.stdout)["findings"]?.arrayValue)
        #expect(findings.count == 1)
        #expect(findings.first?["kind"]?.stringValue == "case_mismatch" && findings.first?["suggestion"]?.stringValue == "message")

        // Nothing even at info level (its only category was delivered, so it is not dead).
        #expect(try Self.tapwire(["alerts", "--app", "clean", "--min-severity", "info", "--database-url", url]).status == 0)

        // Errors: 2, with a message that says the fix.
        let unknown = try Self.tapwire(["alerts", "--app", "nope", "--database-url", url])
        #expect(unknown.status == 2 && unknown.stderr.contains("no app named nope"))
        let badSeverity = try Self.tapwire(["alerts", "--app", "clean", "--min-severity", "loud", "--database-url", url])
        #expect(badSeverity.status == 2 && badSeverity.stderr.contains("--min-severity must be info, warning or error"))
        let badSince = try Self.tapwire(["alerts", "--app", "clean", "--since", "yesterday", "--database-url", url])
        #expect(badSince.status == 2 && badSince.stderr.contains("--since must be a duration"))
        let noApp = try Self.tapwire(["alerts", "--database-url", url])
        #expect(noApp.status == 2 && noApp.stderr.contains("--app NAME"))
        let noDatabase = try Self.tapwire(["alerts", "--app", "clean", "--database-url", "postgresql://127.0.0.1:1/none"])
        #expect(noDatabase.status == 2 && noDatabase.stderr.contains("cannot connect"))
        let unknownFlag = try Self.tapwire(["alerts", "--app", "clean", "--colour", "--database-url", url])
        #expect(unknownFlag.status == 2)
    }
}
