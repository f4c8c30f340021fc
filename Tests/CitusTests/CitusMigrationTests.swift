import Foundation
import Testing
import TapwireCore
@testable import TapwireStore
import TapwireTestSupport

/// `tapwire migrate` on a real Citus cluster: a fresh one, one where the previous release's
/// migrate stopped at 0030, and a database migrated on plain PostgreSQL that moves to Citus.
@Suite struct CitusMigrationTests {
    /// Every table as tapwire_table_layout lists it: the per-app tables distributed by app_id in
    /// one colocation group (an event's id claim and its row on the same shard), apps, api_keys and
    /// rebuild_generations reference tables, the coordinator's own tables left alone.
    func expectLaidOutAsListed(_ connection: PostgresConnection) throws {
        let listed = Dictionary(uniqueKeysWithValues: try connection.query("SELECT table_name, layout FROM tapwire_table_layout").rows
            .map { ($0[0]!, $0[1]!) })
        let actual = try citusLayout(connection)
        #expect(listed.count >= 20)
        for (table, layout) in listed {
            switch layout {
            case "distributed":
                #expect(actual[table]?.layout == "distributed" && actual[table]?.column == "app_id", "\(table): \(String(describing: actual[table]))")
            case "reference":
                #expect(actual[table]?.layout == "reference", "\(table): \(String(describing: actual[table]))")
            default:
                #expect(actual[table] == nil, "\(table) is local, yet Citus has it as \(String(describing: actual[table]))")
            }
        }
        let groups = Set(listed.filter { $0.value == "distributed" }.keys.compactMap { actual[$0]?.colocation })
        #expect(groups.count == 1, "distributed tables in colocation groups \(groups)")
        // Nothing is left for a later run to lay out.
        #expect(try connection.query("SELECT tapwire_apply_citus_layout()").scalar == "0")
    }

    @Test func aFreshClusterIsMigratedAndLaidOut() throws {
        let database = try citus().database()
        let connection = try database.connect()
        defer { connection.close() }
        let applied = try Migrator().migrate(connection)
        #expect(applied.count == EmbeddedSQL.migrations.count)
        try expectLaidOutAsListed(connection)
        #expect(try Migrator().migrate(connection).isEmpty)
        // The checksums recorded are the migrations' own, as on plain PostgreSQL.
        let recorded = try connection.query("SELECT version, checksum FROM schema_migrations ORDER BY version").rows
        #expect(recorded.map { $0[1] ?? "" } == EmbeddedSQL.migrations.map { Migrator.checksum($0.sql) })
        // Partitions made later by the collectors are distributed with their parent, co-located.
        try connection.query("SELECT tapwire_ensure_event_partitions('2026-01-01', '2026-01-02')")
        let partitions = try citusLayout(connection)
        let events = try #require(partitions["events"])
        #expect(try connection.query("""
            SELECT count(*) FROM pg_dist_partition WHERE logicalrelid::text IN ('events_20260101', 'events_20260102')
              AND partmethod = 'h' AND colocationid = $1::integer
            """, [String(events.colocation ?? -1)]).scalar == "2")
    }

    /// The previous release's `tapwire migrate` ran each migration as one script: on Citus it
    /// stopped at 0030 (api_keys made a reference table before apps), its transaction rolled
    /// back, with 0001-0021 applied. This release's migrate finishes that install.
    @Test func anInstallThatStoppedAt0030IsFinishedByMigrate() throws {
        let database = try citus().database()
        let connection = try database.connect()
        defer { connection.close() }
        try Migrator(through: 21).migrate(connection)
        let layout = try #require(EmbeddedSQL.migrations.first { $0.version == 30 })
        let refused = #expect(throws: DatabaseError.self) {
            try connection.transaction { () throws(DatabaseError) in try connection.executeScript(layout.script) }
        }
        #expect(refused?.sqlState == "0A000", "\(String(describing: refused))")
        #expect(try Migrator().currentVersion(connection) == 21)
        let applied = try Migrator().migrate(connection)
        #expect(applied.first?.version == 30)
        #expect(applied.count == EmbeddedSQL.migrations.filter { $0.version >= 30 }.count)
        try expectLaidOutAsListed(connection)
    }

    /// A database migrated and used on plain PostgreSQL (the extension not created in it), then
    /// moved: the extension created, the workers added, `tapwire migrate` lays out every table,
    /// and what was stored is still there, now on the workers.
    @Test func aDatabaseMigratedOnPostgreSQLMovesToCitusWithItsData() throws {
        let cluster = try citus()
        let database = try cluster.plainDatabase(prefix: "moved")
        let connection = try database.connect()
        defer { connection.close() }
        try Migrator().migrate(connection)
        #expect(try connection.query("SELECT tapwire_citus_installed()").scalar == "f")
        let app = try database.createApp("moving")
        let collector = try TestCollector(database: database) { $0.rateLimitPerSecond = 0 }
        let start = Timestamp.now.adding(seconds: -7200)
        let events = (0..<200).map { TestBatch.event(["delivered", "response"][$0 % 2], at: start.adding(seconds: Double($0) * 10),
                                                     $0 % 2 == 1 ? [("actionIdentifier", "com.apple.UNNotificationDefaultActionIdentifier")] : []) }
        let body = TestBatch.body(events, sentAt: nil)
        #expect(try collector.client().post("/v1/batch", key: app.writeKey.text, json: body).status == 200)
        collector.stop()
        try RollupStore().fold(on: connection)
        let snapshot = try RollupSnapshot.rows(appId: app.appId, on: connection)

        try cluster.distribute(database)
        #expect(try Migrator().migrate(connection).isEmpty)
        try expectLaidOutAsListed(connection)
        #expect(try RollupSnapshot.rows(appId: app.appId, on: connection) == snapshot)
        #expect(try connection.query("SELECT count(*) FROM events WHERE app_id = $1::bigint", [String(app.appId)]).scalar == "200")
        // The rows live on the shards now, not in the coordinator's own tables of those names.
        #expect(try connection.query("""
            SELECT coalesce(sum(pg_relation_size(c.oid)), -1) FROM pg_class c
            WHERE c.relkind = 'r' AND (c.relname IN ('apps', 'api_keys', 'event_ids', 'rollup_counts') OR c.relname LIKE 'events\\_2%')
            """).scalar == "0")
        // And the app keeps working: its retry is a duplicate.
        let again = try TestCollector(database: database) { $0.rateLimitPerSecond = 0 }
        defer { again.stop() }
        let retry = try again.client().post("/v1/batch", key: app.writeKey.text, json: body)
        #expect(retry.status == 200 && retry.json?["duplicates"]?.numberValue?.integer == 200, "\(retry.text)")
    }
}
