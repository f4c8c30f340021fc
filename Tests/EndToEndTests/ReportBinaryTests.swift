import Foundation
import Testing
import TapwireCore
import TapwireStore
import TapwireTestSupport

/// `tapwire demo`, `report` and `rollups rebuild` as a user runs them.
@Suite(.serialized) struct ReportBinaryTests {
    @Test func demoThenReportInEveryFormatThenRebuild() throws {
        let name = "e2e_report_" + String(UInt32.random(in: 0...UInt32.max))
        let admin = try PostgresConnection(url: try TestPostgres.serverURL())
        try admin.query("CREATE DATABASE \(name)")
        admin.close()
        let url = try TestPostgres.url(database: name)
        #expect(try TapwireBinary.run(["migrate", "--database-url", url]).status == 0)

        // Two weeks that end at a UTC midnight ten days ago: the demo's events stay inside the
        // collector's 400-day window whenever the test runs.
        let day: Int64 = 86_400_000_000
        let end = Timestamp(microseconds: (Timestamp.now.microseconds / day - 10) * day)
        let first = end.adding(microseconds: -14 * day), last = end.adding(microseconds: -day)

        let html = FileManager.default.temporaryDirectory.appendingPathComponent("\(name).html").path
        defer { try? FileManager.default.removeItem(atPath: html) }
        let demo = try TapwireBinary.run(["demo", "--database-url", url, "--app", "shop", "--seed", "5", "--devices", "100",
                                          "--notifications", "3000", "--end", end.iso8601(fractionDigits: 0), "--format", "table", "--html", html])
        #expect(demo.status == 0, "\(demo.output.suffix(2000))")
        #expect(demo.output.contains("accepted") && demo.output.contains("Rich vs text-only"))
        // The demo's holdout campaign, with its intervals and split check.
        #expect(demo.output.contains("weekly-offer (window 7 days") && demo.output.contains("Split: ") && demo.output.contains("anytime-valid"))
        #expect(demo.output.contains("demo: posted"), "plain progress lines when not on a terminal")
        #expect(try String(contentsOfFile: html, encoding: .utf8).contains("chart-uplift"))

        let range = ["--from", String(first.iso8601(fractionDigits: 0).prefix(10)), "--to", String(last.iso8601(fractionDigits: 0).prefix(10))]
        let json = try TapwireBinary.run(["report", "--app", "shop", "--format", "json", "--database-url", url] + range)
        #expect(json.status == 0)
        let document = try #require(try? JSONParser().parse(json.output))
        #expect(document["schemaVersion"]?.numberValue?.integer == 3)
        #expect(document["from"]?.stringValue == first.iso8601(fractionDigits: 3) && document["to"]?.stringValue == end.iso8601(fractionDigits: 3))
        let delivered = try #require(document["overall"]?["delivered"]?.numberValue?.integer)
        #expect(delivered > 2000)

        let csvPath = FileManager.default.temporaryDirectory.appendingPathComponent("\(name).csv").path
        defer { try? FileManager.default.removeItem(atPath: csvPath) }
        for format in ["table", "md", "html"] {
            let run = try TapwireBinary.run(["report", "--app", "shop", "--format", format, "--database-url", url] + range)
            #expect(run.status == 0 && run.output.contains("message"), "format \(format)")
        }
        let csv = try TapwireBinary.run(["report", "--app", "shop", "--format", "csv", "--out", csvPath, "--by", "platform",
                                         "--tz", "Europe/Bucharest", "--database-url", url] + range)
        #expect(csv.status == 0)
        #expect(try String(contentsOfFile: csvPath, encoding: .utf8).contains("platform,iOS,message"))

        // A rebuild from raw events gives the same report.
        let rebuild = try TapwireBinary.run(["rollups", "rebuild", "--app", "shop", "--database-url", url])
        #expect(rebuild.status == 0 && rebuild.output.contains("rebuilt rollups of shop"))
        let after = try TapwireBinary.run(["report", "--app", "shop", "--format", "json", "--database-url", url] + range)
        func withoutGeneratedAt(_ text: String) -> String {
            text.split(separator: "\n").filter { !$0.contains("\"generatedAt\"") }.joined(separator: "\n")
        }
        #expect(withoutGeneratedAt(after.output) == withoutGeneratedAt(json.output))

        // Mistakes get a message with the fix, and exit code 2.
        for (arguments, fragment) in [(["--tz", "Mars/Base"], "unknown time zone"), (["--since", "7x"], "--since must"),
                                      (["--format", "pdf"], "--format must"), (["--by", "colour"], "--by must")] {
            let run = try TapwireBinary.run(["report", "--app", "shop", "--database-url", url] + arguments)
            #expect(run.status == 2 && run.output.contains(fragment), "\(arguments): \(run.output)")
        }
        let unknown = try TapwireBinary.run(["report", "--app", "nope", "--database-url", url])
        #expect(unknown.status == 2 && unknown.output.contains("apps list"))
    }
}

/// `tapwire report --format csv` writes hostile names as text, as the HTTP export does.
extension ReportBinaryTests {
    @Test func reportCommandCSVDefusesHostileNames() throws {
        let server = try TestCollector.start { $0.rateLimitPerSecond = 0 }
        defer { server.stop() }
        let app = try server.database.createApp("hostile")
        try FormulaInjection.postTraffic(server.client(), key: app.writeKey.text)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("hostile-\(UInt32.random(in: 0...UInt32.max)).csv").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let run = try TapwireBinary.run(["report", "--app", "hostile", "--format", "csv", "--by", "campaign", "--since", "1d",
                                         "--out", path, "--database-url", server.database.url])
        #expect(run.status == 0, "\(run.output.suffix(1000))")
        let csv = try String(contentsOfFile: path, encoding: .utf8)
        #expect(FormulaInjection.liveCells(csv) == [])
        #expect(FormulaInjection.neutralised(csv) == Set(FormulaInjection.names))
    }
}

/// `--out` writes into what is there when it is not a regular file: a FIFO stays a FIFO (and so
/// /dev/null stays a device when root writes a report to it), a symbolic link stays a link.
extension ReportBinaryTests {
    @Test func reportOutWritesIntoPipesAndThroughLinks() throws {
        let database = try TestDatabase.create()
        _ = try database.createApp("outputs")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("out-\(UInt32.random(in: 0...UInt32.max))").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        func report(to path: String) throws -> Subprocess.Result {
            try TapwireBinary.run(["report", "--app", "outputs", "--format", "csv", "--since", "1d", "--out", path,
                                   "--database-url", database.url])
        }
        func fileType(_ path: String) -> FileAttributeType? {
            (try? FileManager.default.attributesOfItem(atPath: path))?[.type] as? FileAttributeType
        }

        // The FIFO is held open for reading and writing by the test, so the command's open never
        // blocks and what it wrote waits in the pipe (a few hundred bytes, far below its capacity).
        let fifo = directory + "/pipe"
        #expect(mkfifo(fifo, 0o600) == 0)
        let held = open(fifo, O_RDWR | O_NONBLOCK)
        #expect(held >= 0)
        defer { close(held) }
        let toPipe = try report(to: fifo)
        #expect(toPipe.status == 0, "\(toPipe.output.suffix(1000))")
        var status = stat()
        #expect(lstat(fifo, &status) == 0 && status.st_mode & S_IFMT == S_IFIFO, "still a FIFO, not a regular file")
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let count = read(held, &buffer, buffer.count)
        #expect(count > 0)
        let piped = String(decoding: buffer.prefix(max(count, 0)), as: UTF8.self)
        #expect(piped.hasPrefix("group_dimension,group_value,category,"), "\(piped.prefix(200))")

        // A link to a file: the file gets the report, the link stays.
        let file = directory + "/report.csv", link = directory + "/latest.csv"
        try "old".write(toFile: file, atomically: false, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: file)
        let toLink = try report(to: link)
        #expect(toLink.status == 0, "\(toLink.output.suffix(1000))")
        #expect(fileType(link) == .typeSymbolicLink)
        #expect(try String(contentsOfFile: file, encoding: .utf8) == piped)

        // A directory is refused with the fix.
        let toDirectory = try report(to: directory)
        #expect(toDirectory.status == 2 && toDirectory.output.contains("is a directory"), "\(toDirectory.output)")
    }
}
