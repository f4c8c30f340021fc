import Foundation
import Testing
import TapwireCore
import TapwireStore
import TapwireTestSupport

/// Every command of the built `tapwire` against a Citus coordinator, as an operator runs them:
/// migrate, apps, keys, serve (batches, retries, manifests, readiness) fed by `demo --url`,
/// report in every format, alerts (the stored look and --fresh), rollups rebuild, retention.
@Suite struct CitusCommandTests {
    static func run(_ arguments: [String], url: String) throws -> (status: Int32, output: String) {
        let result = try TapwireBinary.run(arguments + ["--database-url", url])
        return (result.status, result.output)
    }

    @Test func everyCommandWorksOnCitus() throws {
        let database = try citus().database(prefix: "commands")
        let url = database.url
        for _ in 0..<2 {
            let migrated = try Self.run(["migrate"], url: url)
            #expect(migrated.status == 0, "\(migrated.output)")
        }
        let created = try Self.run(["apps", "create", "shop", "--format", "json"], url: url)
        #expect(created.status == 0, "\(created.output)")
        let keys = try JSONParser().parse(Array(created.output.split(separator: "\n").last { $0.hasPrefix("{") }.map { Array($0.utf8) } ?? []))
        let writeKey = try #require(keys["writeKey"]?.stringValue, "\(created.output)")
        let listed = try Self.run(["apps", "list", "--format", "json"], url: url)
        #expect(listed.status == 0 && listed.output.contains("\"shop\""), "\(listed.output)")
        let rotated = try Self.run(["keys", "rotate", "shop", "--kind", "read", "--grace", "1h", "--format", "json"], url: url)
        #expect(rotated.status == 0, "\(rotated.output)")

        let collector = try TapwireBinary.serve(databaseURL: url, extraArguments: ["--rate-limit", "0"])
        defer { _ = collector.interrupt() }
        #expect(try collector.client.get("/readyz").status == 200)
        let end = Timestamp(microseconds: RollupDeltas.floor(Timestamp.now.microseconds, RollupDeltas.microsecondsPerHour))
        let demo = try TapwireBinary.run(["demo", "--url", "http://127.0.0.1:\(collector.port)", "--write-key", writeKey, "--app", "shop",
                                          "--notifications", "1500", "--devices", "80", "--days", "3", "--retry-fraction", "0.2",
                                          "--holdout-devices", "1000", "--end", end.description, "--format", "none"])
        #expect(demo.status == 0, "\(demo.output)")
        #expect(demo.output.contains("0 rejected") && !demo.output.contains(" 0 duplicates"), "\(demo.output)")
        #expect(!collector.log.contains("\"status\":500"), "the collector answered 500: \(collector.log.suffix(2000))")

        let from = end.adding(seconds: -3 * 86_400)
        for format in ["table", "json", "csv", "md", "html"] {
            for extra in [[], ["--tz", "Asia/Kolkata", "--by", "version"], ["--since", "2d"]] {
                let report = try Self.run(["report", "--app", "shop", "--format", format, "--from", from.description, "--to", end.description]
                                          .filter { extra.contains("--since") ? !["--from", from.description].contains($0) : true } + extra,
                                          url: url)
                #expect(report.status == 0 && report.output.count > 200, "report \(format) \(extra): \(report.output.prefix(500))")
            }
        }
        for extra in [[], ["--fresh"], ["--format", "json"], ["--at", end.adding(seconds: -3_600).description]] {
            let alerts = try Self.run(["alerts", "--app", "shop"] + extra, url: url)
            #expect(alerts.status == 0 || alerts.status == 1, "alerts \(extra): \(alerts.output.prefix(500))")
        }
        let rebuilt = try Self.run(["rollups", "rebuild", "--app", "shop"], url: url)
        #expect(rebuilt.status == 0, "\(rebuilt.output)")
        let rebuiltAll = try Self.run(["rollups", "rebuild", "--from", from.description, "--to", end.description], url: url)
        #expect(rebuiltAll.status == 0, "\(rebuiltAll.output)")
        for extra in [["--dry-run"], []] {
            let retention = try Self.run(["retention", "--keep", "400d"] + extra, url: url)
            #expect(retention.status == 0, "retention \(extra): \(retention.output)")
        }
    }
}
