import Foundation
import Testing
import TapwireCore
import TapwireStore
import TapwireTestSupport

/// Tapwire behind a real PgBouncer in transaction pooling with its stock settings (Debian's
/// package): consecutive transactions of one Tapwire connection run on whichever server session
/// is free, so nothing may rely on session state (docs/deployment.md, "PgBouncer"). Everything
/// goes through it: two concurrent `tapwire migrate`, two collectors taking batches with retries
/// while the server sessions under PgBouncer are terminated, the report (CLI and HTTP), a
/// rebuild, alerts and retention, each compared with the same command on a direct connection.
@Suite(.serialized) struct PgBouncerTests {
    /// The report JSON without its generation time, over whole UTC days (yesterday and today), so
    /// two runs read the same range.
    static func reportJSON(_ url: String, days: (from: String, to: String)) throws -> String {
        let (from, to) = days
        let result = try TapwireBinary.run(["report", "--app", "shop", "--from", from, "--to", to, "--format", "json", "--database-url", url])
        try #require(result.status == 0, "\(result.output)")
        let members = try #require(try JSONParser().parse(result.output).objectValue?.members).filter { $0.key != "generatedAt" }
        return JSONValue.object(members.map { ($0.key, $0.value) }).serialized()
    }

    @Test func everyCommandAndTwoCollectorsWorkThroughTransactionPooling() throws {
        let server = try #require(URLComponents(string: try TestPostgres.serverURL()))
        let bouncer = try PgBouncer.start(serverPort: try #require(server.port))
        defer { bouncer.stop() }
        let name = try TestPostgres.blankDatabase(prefix: "bouncer")
        let direct = try TestPostgres.url(database: name)
        let pooled = bouncer.url(database: name)

        // Two migrations at once take turns: each migration is applied once.
        let log = NSTemporaryDirectory() + "tapwire-migrate-\(UInt32.random(in: 0...UInt32.max))"
        let migrations = try (0..<2).map { i in
            try Subprocess.spawn(try TapwireBinary.path(), ["migrate", "--database-url", pooled], logPath: "\(log)-\(i).log")
        }
        for (i, child) in migrations.enumerated() {
            #expect(child.wait(timeout: 120) == 0, "\((try? String(contentsOfFile: "\(log)-\(i).log", encoding: .utf8)) ?? "")")
        }
        let check = try PostgresConnection(url: direct)
        defer { check.close() }
        let migrationCount = String(try Self.migrationCount())
        #expect(try check.query("SELECT count(*), count(DISTINCT version) FROM schema_migrations").rows.first == [migrationCount, migrationCount])

        let created = try TapwireBinary.run(["apps", "create", "shop", "--format", "json", "--database-url", pooled])
        try #require(created.status == 0, "\(created.output)")
        let keys = try JSONParser().parse(created.output.trimmingCharacters(in: .whitespacesAndNewlines))
        let writeKey = try #require(keys["writeKey"]?.stringValue), readKey = try #require(keys["readKey"]?.stringValue)

        let a = try TapwireBinary.serve(databaseURL: pooled)
        let b = try TapwireBinary.serve(databaseURL: pooled)
        defer {
            _ = a.interrupt()
            _ = b.interrupt()
        }
        let load = AcknowledgedLoad(ports: [a.port, b.port], writeKey: writeKey)
        // A batch retried to both collectors, more than once: stored once, then duplicates (a
        // claim that meets a stored id stages the group's ids in a temporary table, which must
        // exist in whichever server session the transaction runs on).
        let retried = TestBatch.body((0..<200).map { _ in TestBatch.event() })
        var retriedOutcomes: [Int] = []
        for port in [a.port, b.port, a.port, b.port] {
            let response = try HTTPTestClient(port: port).post("/v1/batch", key: writeKey, json: retried)
            #expect(response.status == 200, "\(response.text)")
            retriedOutcomes.append(response.json?["accepted"]?.numberValue?.integer.map { Int($0) } ?? -1)
        }
        #expect(retriedOutcomes == [200, 0, 0, 0])
        #expect(eventually(timeout: 60) { load.acknowledgedCount >= 1500 })
        // Every server session PgBouncer holds is terminated under the collectors: their
        // transactions fail, batches are answered 503 and retried.
        let admin = try PostgresConnection(url: try TestPostgres.serverURL())
        defer { admin.close() }
        let checkPid = try #require(try check.query("SELECT pg_backend_pid()").scalar)
        let terminated = try admin.query("""
            SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) FROM pg_stat_activity
            WHERE datname = $1 AND backend_type = 'client backend' AND pid <> $2::int
            """, [name, checkPid]).scalar
        #expect(Int(terminated ?? "") ?? 0 >= 2)
        let afterCut = load.acknowledgedCount
        #expect(eventually(timeout: 60) { load.acknowledgedCount >= afterCut + 1500 })
        let summary = load.stop()
        #expect(summary.onlyRetryableFailures, "\(summary.failures)")

        // Every acknowledged id stored, once; nothing stored that was not posted.
        let stored = try check.query("SELECT event_id::text FROM events").rows.compactMap { $0[0] }
        #expect(stored.count == Set(stored).count, "an event stored twice")
        #expect(summary.acknowledged.isSubset(of: Set(stored)), "\(summary.acknowledged.subtracting(stored).count) acknowledged ids missing")
        #expect(Set(stored).subtracting(Self.ids(of: retried)).isSubset(of: summary.posted))

        // The report, through PgBouncer and directly, by the CLI; and by HTTP.
        let now = Date().timeIntervalSince1970
        let format = Date.ISO8601FormatStyle(timeZone: .gmt).year().month().day()
        let days = (Date(timeIntervalSince1970: now - 86_400).formatted(format), Date(timeIntervalSince1970: now).formatted(format))
        let pooledReport = try Self.reportJSON(pooled, days: days)
        let directReport = try Self.reportJSON(direct, days: days)
        #expect(pooledReport == directReport, "\(Self.difference(pooledReport, directReport))")
        #expect(pooledReport.contains("\"delivered\""))
        #expect(try a.client.get("/v1/reports/engagement?since=2d", key: readKey).status == 200)

        // A rebuild through PgBouncer writes what the commits wrote, and the SQL oracle agrees.
        let appId = try #require(check.query("SELECT app_id FROM apps WHERE name = 'shop'").scalar)
        let before = try RollupSnapshot.rows(appId: Int64(appId)!, on: check)
        let rebuild = try TapwireBinary.run(["rollups", "rebuild", "--app", "shop", "--database-url", pooled])
        #expect(rebuild.status == 0, "\(rebuild.output)")
        #expect(try RollupSnapshot.rows(appId: Int64(appId)!, on: check) == before)
        #expect(try RollupSnapshot.recomputedByOracle(appId: Int64(appId)!, on: check) == before)

        // Alerts: the same findings through PgBouncer as directly (exit 0 or 1 is the verdict), as
        // of one instant, which the answer states.
        let alertsAt = Timestamp.now
        let at = alertsAt.description, since = alertsAt.adding(seconds: -2 * 86_400).description
        let pooledAlerts = try TapwireBinary.run(["alerts", "--app", "shop", "--since", since, "--at", at, "--format", "json", "--database-url", pooled])
        let directAlerts = try TapwireBinary.run(["alerts", "--app", "shop", "--since", since, "--at", at, "--format", "json", "--database-url", direct])
        #expect(pooledAlerts.status < 2 && pooledAlerts.status == directAlerts.status, "\(pooledAlerts.output)")
        #expect(pooledAlerts.output == directAlerts.output)

        // Retention: partitions 430 days old are dropped; a run that finds another holding the
        // lock does nothing; the lock is released when the run ends.
        try check.query("SELECT tapwire_ensure_event_partitions(current_date - 432, current_date - 428)")
        try admin.query("SELECT 1") // the admin session stays usable after the terminations
        let holder = try PostgresConnection(url: direct)
        try holder.query("SELECT pg_advisory_lock(7358030)")
        let blocked = try TapwireBinary.run(["retention", "--keep", "400d", "--format", "json", "--database-url", pooled])
        #expect(blocked.status == 0 && blocked.output.contains("\"ran\":false"), "\(blocked.output)")
        holder.close()
        for _ in 0..<2 {
            let run = try TapwireBinary.run(["retention", "--keep", "400d", "--format", "json", "--database-url", pooled])
            #expect(run.status == 0 && run.output.contains("\"ran\":true"), "\(run.output)")
        }
        #expect(try check.query("SELECT count(*) FROM tapwire_event_partitions() WHERE range_end < now() - interval '401 days'").scalar == "0")
        #expect(try check.query("SELECT count(*) FROM retention_dropped_partitions WHERE dropped_at IS NOT NULL").scalar == "5")
        #expect(!bouncer.log.contains("unsupported startup parameter"), "\(bouncer.log)")
    }

    /// Where two texts first differ, with some context.
    static func difference(_ a: String, _ b: String) -> String {
        let a = Array(a), b = Array(b)
        let at = (0..<min(a.count, b.count)).first { a[$0] != b[$0] } ?? min(a.count, b.count)
        let from = max(0, at - 120)
        return "at \(at): \(String(a[from..<min(a.count, at + 120)])) ≠ \(String(b[from..<min(b.count, at + 120)]))"
    }

    static func ids(of body: [UInt8]) -> Set<String> {
        Set((try? JSONParser().parse(body))?["events"]?.arrayValue?.compactMap { $0["eventId"]?.stringValue } ?? [])
    }

    static func migrationCount() throws -> Int {
        let directory = DeploymentTests.root + "/sql/migrations"
        return try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".sql") }.count
    }
}
