import Foundation
import Testing
import TapwireCore
import TapwireStore
import TapwireTestSupport

/// Reports and alerts read from a real streaming hot standby (`pg_basebackup -R`) give what the
/// primary gives once the standby has replayed its WAL, say how far behind the standby is when
/// that is noticeable, and a standby's recovery conflict is never a 500
/// (docs/high-availability.md, "Reading from a standby").
@Suite(.serialized) struct StandbyReadTests {
    static let manifest = #"{"appVersion":"1.0","categories":[{"identifier":"message","options":[],"actions":[{"identifier":"reply","textInput":true}]}]}"#

    /// A mix the report and the alerts both have something to say about: rich and text-only
    /// deliveries, replies, an action nobody registered and a miscased category.
    static func events(_ count: Int) -> [JSONValue] {
        (0..<count).flatMap { i -> [JSONValue] in
            let media: [(String, JSONValue)] = [("hasMedia", .bool(i % 2 == 0))]
            var batch = [TestBatch.event(category: "message", media)]
            if i % 3 == 0 { batch.append(TestBatch.event("response", category: "message", [("actionIdentifier", "reply"), ("userTextLength", 12)] + media)) }
            if i % 7 == 0 { batch.append(TestBatch.event("response", category: "message", [("actionIdentifier", "archive")])) }
            if i % 11 == 0 { batch.append(TestBatch.event(category: "Message")) }
            return batch
        }
    }

    @Test func reportsAndAlertsOnTheStandbyEqualThePrimarys() throws {
        let cluster = try ReplicatedCluster.start()
        defer { cluster.stop() }
        try cluster.primary.createDatabase("tapwire")
        let primary = cluster.primary.url(database: "tapwire"), standby = cluster.standby.url(database: "tapwire")
        let migrated = try TapwireBinary.run(["migrate", "--database-url", primary])
        try #require(migrated.status == 0, "\(migrated.output)")
        let created = try TapwireBinary.run(["apps", "create", "shop", "--format", "json", "--database-url", primary])
        try #require(created.status == 0, "\(created.output)")
        let keys = try JSONParser().parse(created.output.trimmingCharacters(in: .whitespacesAndNewlines))
        let writeKey = try #require(keys["writeKey"]?.stringValue), readKey = try #require(keys["readKey"]?.stringValue)

        let collector = try TapwireBinary.serve(databaseURL: primary)
        defer { _ = collector.interrupt() }
        #expect(try collector.client.post("/v1/categories", key: writeKey, json: Array(Self.manifest.utf8)).status == 200)
        for _ in 0..<20 {
            let response = try collector.client.post("/v1/batch", key: writeKey, json: TestBatch.body(Self.events(40)))
            try #require(response.status == 200, "\(response.text)")
        }
        // A reader on the standby, beside the collector on the primary, once the standby has the
        // migrations (a collector checks the schema's version when it starts).
        #expect(try cluster.awaitReplay())
        let reader = try TapwireBinary.serve(databaseURL: standby)
        defer { _ = reader.interrupt() }

        // The primary's report first: it folds the pending deltas (a write the standby cannot
        // do), then the standby has replayed everything.
        let days = StandbyReadTests.days()
        let onPrimary = try Self.run(["report", "--app", "shop", "--from", days.from, "--to", days.to, "--format", "json"], primary)
        // Alerts as of one instant, which the answer states, on both servers.
        let now = Timestamp.now
        let at = now.description, since = now.adding(seconds: -7_200).description
        let alertsOnPrimary = try Self.run(["alerts", "--app", "shop", "--since", since, "--at", at, "--format", "json"], primary)
        #expect(try cluster.awaitReplay())
        let onStandby = try Self.run(["report", "--app", "shop", "--from", days.from, "--to", days.to, "--format", "json"], standby)
        #expect(onStandby.status == 0, "\(onStandby.stderr)")
        #expect(onStandby.stderr.isEmpty, "\(onStandby.stderr)")
        #expect(Self.withoutGeneratedAt(onStandby.stdout) == Self.withoutGeneratedAt(onPrimary.stdout))
        // 20 batches of 40 deliveries of "message" and 4 of "Message".
        #expect((try? JSONParser().parse(onPrimary.stdout))?["overall"]?["delivered"]?.numberValue?.integer == 880, "\(onPrimary.stdout.prefix(600))")
        let alertsOnStandby = try Self.run(["alerts", "--app", "shop", "--since", since, "--at", at, "--format", "json"], standby)
        #expect(alertsOnPrimary.status == 1 && alertsOnStandby.status == 1, "\(alertsOnStandby.stderr)")
        #expect(alertsOnStandby.stdout == alertsOnPrimary.stdout)
        #expect(alertsOnStandby.stdout.contains("unregistered_action") && alertsOnStandby.stdout.contains("case_mismatch"))

        // The same over HTTP from a collector whose database is the standby.
        let query = "/v1/reports/engagement?from=\(days.from)&to=\(days.to)&format=json"
        let overHTTP = try reader.client.get(query, key: readKey)
        #expect(overHTTP.status == 200, "\(overHTTP.text)")
        #expect(overHTTP.headers["tapwire-replay-lag-seconds"] == nil)
        #expect(Self.withoutGeneratedAt(overHTTP.text) == Self.withoutGeneratedAt(try collector.client.get(query, key: readKey).text))

        // A collector started on the standby now that the app's rollups are there: its findings
        // monitor completes the release check it runs at start for the app. The look is computed
        // and published, not stored (a standby cannot write; the primary's collectors store it).
        let second = try TapwireBinary.serve(databaseURL: standby)
        defer { _ = second.interrupt() }
        #expect(eventually(timeout: 30) {
            (try? second.client.get("/metrics").text.contains("tapwire_findings_checks_total{family=\"release_regression\"} 1")) == true
        }, "\((try? second.client.get("/metrics").text) ?? "")")

        // Replay paused while the primary commits: after a few seconds the standby says how far
        // behind it is, on the CLI (standard error) and over HTTP (a header).
        let replica = try PostgresConnection(url: standby)
        defer { replica.close() }
        try replica.query("SELECT pg_wal_replay_pause()")
        let paused = Date()
        #expect(try collector.client.post("/v1/batch", key: writeKey, json: TestBatch.body(Self.events(5))).status == 200)
        let behind = eventually(timeout: 30, poll: 0.5) {
            Date().timeIntervalSince(paused) > StandbyStatus.noticeableLagSeconds + 1
                && (try? StandbyStatus.read(on: replica).noticeableLagSeconds) != nil
        }
        #expect(behind)
        let lagging = try Self.run(["report", "--app", "shop", "--from", days.from, "--to", days.to, "--format", "json"], standby)
        #expect(lagging.status == 0 && lagging.stderr.contains("note: read from a hot standby") && lagging.stderr.contains("s behind its primary"),
                "\(lagging.stderr)")
        let laggingAlerts = try Self.run(["alerts", "--app", "shop", "--since", "2h", "--format", "json"], standby)
        #expect(laggingAlerts.stderr.contains("behind its primary"), "\(laggingAlerts.stderr)")
        let laggingHTTP = try reader.client.get(query, key: readKey)
        #expect(laggingHTTP.status == 200)
        #expect(Int(laggingHTTP.headers["tapwire-replay-lag-seconds"] ?? "") ?? 0 > Int(StandbyStatus.noticeableLagSeconds), "\(laggingHTTP.headers)")
        try replica.query("SELECT pg_wal_replay_resume()")
        #expect(try cluster.awaitReplay())
        #expect(try StandbyStatus.read(on: replica).replayLagSeconds == 0)
        #expect(try StandbyStatus.read(on: try PostgresConnection(url: primary)).replayLagSeconds == nil)
    }

    /// A read the standby cancels for a conflict with its replay (SQLSTATE 40001) runs again in
    /// a new snapshot; once the retries are spent, the HTTP answer is 503 with Retry-After (never
    /// a 500) and the CLI exits 2 naming the conflict. The cancellation cannot be caused on cue
    /// on a real standby, so the server raises the same SQLSTATE from the statement.
    /// `awaitReplay` covers a commit that has just returned, with the fast settings'
    /// `synchronous_commit = off`: each row committed on the primary is on the standby once it
    /// returns. Waiting for the WAL written out instead of inserted made this fail at once.
    @Test func awaitReplayCoversACommitThatJustReturned() throws {
        let cluster = try ReplicatedCluster.start()
        defer { cluster.stop() }
        let primary = try PostgresConnection(url: cluster.primary.url())
        defer { primary.close() }
        try primary.query("CREATE TABLE replayed (n integer PRIMARY KEY)")
        let standby = try PostgresConnection(url: cluster.standby.url())
        defer { standby.close() }
        for n in 1...20 {
            try primary.query("INSERT INTO replayed VALUES ($1::integer)", [String(n)])
            #expect(try cluster.awaitReplay())
            #expect(try standby.query("SELECT count(*) FROM replayed").scalar == String(n), "row \(n)")
        }
    }

    @Test func aRecoveryConflictIsRetriedThenAnswered503() throws {
        let db = try TestDatabase.create()
        let connection = try db.connect()
        defer { connection.close() }
        var attempts = 0
        let value = try connection.readOnlySnapshot { () throws(DatabaseError) -> String? in
            attempts += 1
            if attempts < 3 {
                try connection.query("DO $$ BEGIN RAISE EXCEPTION 'canceling statement due to conflict with recovery' USING ERRCODE = '40001'; END $$")
            }
            return try connection.query("SELECT 'read'").scalar
        }
        #expect(value == "read" && attempts == 3)

        let app = try db.createApp()
        let collector = try TapwireBinary.serve(databaseURL: db.url)
        defer { _ = collector.interrupt() }
        #expect(try collector.client.post("/v1/batch", key: app.writeKey.text, json: TestBatch.body(Self.events(10))).status == 200)
        let days = Self.days()
        let query = "/v1/reports/engagement?from=\(days.from)&to=\(days.to)&format=json"
        #expect(try collector.client.get(query, key: app.readKey.text).status == 200) // folds what is pending
        // Every read of a UTC day's edge is cancelled from now on.
        try db.query("""
            CREATE OR REPLACE FUNCTION tapwire_utc_day(t timestamptz) RETURNS timestamptz LANGUAGE plpgsql AS $$
            BEGIN RAISE EXCEPTION 'canceling statement due to conflict with recovery' USING ERRCODE = '40001'; END $$
            """)
        let refused = try collector.client.get(query, key: app.readKey.text)
        #expect(refused.status == 503, "\(refused.text)")
        #expect(refused.headers["retry-after"] != nil)
        #expect(refused.json?["error"]?["code"]?.stringValue != nil)
        #expect(refused.text.contains("conflict"), "\(refused.text)")
        let cli = try Self.run(["report", "--app", app.name, "--from", days.from, "--to", days.to], db.url)
        #expect(cli.status == 2 && cli.stderr.contains("40001"), "\(cli.status) \(cli.stderr)")
    }

    struct Run { var status: Int32; var stdout: String; var stderr: String }

    static func run(_ arguments: [String], _ url: String) throws -> Run {
        let result = try AlertsCommandTests.tapwire(arguments + ["--database-url", url])
        return Run(status: result.status, stdout: result.stdout, stderr: result.stderr)
    }

    static func days() -> (from: String, to: String) {
        let now = Date().timeIntervalSince1970
        let format = Date.ISO8601FormatStyle(timeZone: .gmt).year().month().day()
        return (Date(timeIntervalSince1970: now - 86_400).formatted(format), Date(timeIntervalSince1970: now).formatted(format))
    }

    static func withoutGeneratedAt(_ json: String) -> String {
        json.split(separator: "\n").filter { !$0.contains("\"generatedAt\"") }.joined(separator: "\n")
            .replacing(#/"generatedAt":"[^"]*",?/#, with: "")
    }
}
