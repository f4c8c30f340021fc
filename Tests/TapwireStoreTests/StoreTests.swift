import Foundation
import Testing
import TapwireCore
@testable import TapwireStore
import TapwireTestSupport
import TapwireRollupOracle

@Suite struct SessionSettingsTests {
    /// A connection sets nothing for its session (a transaction pooler refuses the startup
    /// `options`, and would hand the session to others): it keeps the server's settings. Each
    /// transaction runs without JIT: reports run in tens of milliseconds, and a JIT compile
    /// triggered by a misestimated cost took longer than the query.
    @Test func sessionsKeepTheServersSettingsAndTransactionsRunWithoutJIT() throws {
        let db = try TestDatabase.create()
        let admin = try PostgresConnection(url: try TestPostgres.serverURL())
        try admin.query("ALTER DATABASE \(db.name) SET TimeZone = 'Asia/Kolkata'")
        admin.close()
        let connection = try db.connect()
        defer { connection.close() }
        #expect(try connection.query("SELECT current_setting('TimeZone'), current_setting('jit')").rows.first == ["Asia/Kolkata", "on"])
        for start in [PostgresConnection.TransactionStart.readWrite, .readOnlySnapshot] {
            let jit = try connection.transaction(start) { () throws(DatabaseError) in try connection.query("SELECT current_setting('jit')").scalar }
            #expect(jit == "off")
        }
        #expect(try connection.query("SELECT current_setting('jit')").scalar == "on", "transaction-local, not left behind")
    }
}

@Suite struct NamedRowTests {
    /// Columns are read by the names the SELECT list gives them, whatever their position.
    @Test func rowsAreReadByColumnName() throws {
        let db = try TestDatabase.create()
        let connection = try db.connect()
        defer { connection.close() }
        let result = try connection.query("SELECT 'x' AS text_value, NULL::int AS missing, n AS count FROM generate_series(1, 2) n")
        #expect(result.namedRows.map { $0["count"] } == ["1", "2"])
        #expect(result.namedRows.allSatisfy { $0["text_value"] == "x" && $0["missing"] == nil })
        #expect(result.namedRows.first?.values == ["x", nil, "1"])
    }
}

/// A `DatabaseError` names the statement that failed: an embedded file by its path under `sql/`,
/// a statement built at run time by the name it was given, an inline one by its own text.
@Suite struct DatabaseErrorNameTests {
    @Test func aFailingQueryNamesItsFile() throws {
        let db = try TestDatabase.create()
        let connection = try db.connect()
        defer { connection.close() }
        do {
            try connection.query(EmbeddedSQL.reportRange, ["No/Such_Zone", "2026-01-01", nil, nil])
            Issue.record("an unknown time zone was accepted")
        } catch {
            #expect(error.query == "sql/queries/report_range.sql")
            #expect(error.code == .queryFailed && error.code.rawValue == "db_query_failed" && error.sqlState == "22023")
            #expect(error.description.hasPrefix("db_query_failed [22023] in sql/queries/report_range.sql: "))
            let sink = LogSink.memory()
            Logger(label: "test", sink: sink).log(.error, "report failed", error.logFields)
            let line = try #require(sink.capturedLines.first)
            #expect(line.contains(#""code":"db_query_failed","sqlstate":"22023","query":"sql/queries/report_range.sql""#))
        }
    }

    @Test func copiesScriptsInlineStatementsAndTransactionsNameTheirs() throws {
        let db = try TestDatabase.create()
        let connection = try db.connect()
        defer { connection.close() }
        let copy = #expect(throws: DatabaseError.self) {
            try connection.copyIn(SQL("COPY no_such_table FROM STDIN", name: "a copy"), data: Array("1\n".utf8))
        }
        #expect(copy?.query == "a copy")
        let script = #expect(throws: DatabaseError.self) { try connection.executeScript(SQL("SELECT 1; SELECT 1 / 0;", name: "sql/a_script.sql")) }
        #expect(script?.query == "sql/a_script.sql")
        let inline = #expect(throws: DatabaseError.self) { try connection.query("SELECT 1 / 0") }
        #expect(inline?.query == #"inline SQL "SELECT 1 / 0""#)
        // A statement failing inside a transaction keeps its own name, not the ROLLBACK's.
        let inside = #expect(throws: DatabaseError.self) {
            try connection.transaction { () throws(DatabaseError) in try connection.query(EmbeddedSQL.ping, ["surplus"]) }
        }
        #expect(inside?.query == "sql/queries/ping.sql" && inside?.code == .queryFailed)
        connection.close()
        let lost = #expect(throws: DatabaseError.self) { try connection.query(EmbeddedSQL.ping) }
        #expect(lost?.code == .connectionLost && lost?.query == "sql/queries/ping.sql")
    }

    /// Each embedded migration and group-commit statement is named by a file that exists.
    @Test func embeddedNamesAreFilesUnderSQL() {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
        let names = EmbeddedSQL.migrations.map(\.script.name) + OracleSQL.freshRowStatements.map(\.sql.name)
            + [EmbeddedSQL.reportRange.name, EmbeddedSQL.ping.name, OracleSQL.stageEvents.name]
        #expect(names.count == EmbeddedSQL.migrations.count + OracleSQL.freshRowStatements.count + 3)
        for name in names {
            #expect(name.hasPrefix("sql/") && name.hasSuffix(".sql") && FileManager.default.fileExists(atPath: root + "/" + name), "\(name)")
        }
        #expect(OracleSQL.freshRowStatements.allSatisfy { $0.sql.name == "sql/" + $0.name })
    }

    @Test func inlineStatementsAreNamedByTheirFirstLine() {
        #expect(SQL(inline: "COMMIT").name == #"inline SQL "COMMIT""#)
        #expect(SQL(inline: "\n   SELECT  a,\tb\n FROM t").name == #"inline SQL "SELECT a, b""#)
        let long = SQL(inline: "SELECT " + String(repeating: "x", count: 100))
        #expect(long.name == "inline SQL \"SELECT " + String(repeating: "x", count: 52) + "…\"")
        #expect(long.text == "SELECT " + String(repeating: "x", count: 100))
        #expect(SQL(inline: "").name == #"inline SQL """#)
    }
}

/// `PostgresConnection.transaction`: COMMIT on return, ROLLBACK on any error, the error unchanged.
@Suite struct TransactionTests {
    @Test func commitsOnReturnAndRollsBackOnError() throws {
        let db = try TestDatabase.create()
        let connection = try db.connect(), observer = try db.connect()
        defer { connection.close(); observer.close() }
        try connection.query("CREATE TABLE tx_probe (n int)")
        func seen() throws -> [String?] { try observer.query("SELECT n FROM tx_probe ORDER BY n").rows.map { $0[0] } }

        let value = try connection.transaction { () throws(DatabaseError) -> Int in
            try connection.query("INSERT INTO tx_probe VALUES (1)")
            return 7
        }
        #expect(value == 7)
        #expect(try seen() == ["1"])

        // An error thrown by the body: rolled back, and the same error comes out.
        #expect(throws: DatabaseError.self) {
            try connection.transaction { () throws(DatabaseError) in
                try connection.query("INSERT INTO tx_probe VALUES (2)")
                throw DatabaseError(.unexpectedResult, "the body gave up")
            }
        }
        do {
            try connection.transaction { () throws(DatabaseError) in throw DatabaseError(.unexpectedResult, "again") }
        } catch {
            #expect(error.code == .unexpectedResult && error.message == "again")
        }
        // A failing statement: its SQLSTATE is kept, and the connection is left outside any transaction.
        do {
            try connection.transaction { () throws(DatabaseError) in
                try connection.query("INSERT INTO tx_probe VALUES (3)")
                try connection.query("SELECT 1 / 0")
            }
            Issue.record("division by zero did not throw")
        } catch {
            #expect(error.sqlState == "22012")
        }
        // Outside any transaction now: a plain insert is visible to another session at once.
        try connection.query("INSERT INTO tx_probe VALUES (4)")
        #expect(try seen() == ["1", "4"])
    }

    /// A connection lost inside the transaction: the loss is reported, nothing is committed, no trap.
    @Test func aLostConnectionIsReportedNotHidden() throws {
        let db = try TestDatabase.create()
        let connection = try db.connect(), observer = try db.connect()
        defer { connection.close(); observer.close() }
        try connection.query("CREATE TABLE tx_probe (n int)")
        do {
            try connection.transaction { () throws(DatabaseError) in
                try connection.query("INSERT INTO tx_probe VALUES (1)")
                connection.close()
            }
            Issue.record("COMMIT on a closed connection did not throw")
        } catch {
            #expect(error.code == .connectionLost)
        }
        #expect(!connection.isUsable)
        #expect(try observer.query("SELECT count(*) FROM tx_probe").scalar == "0")
    }
}

@Suite struct MigrationTests {
    @Test func migratingTwiceIsANoOp() throws {
        let db = try TestDatabase.create()
        let connection = try db.connect()
        defer { connection.close() }
        #expect(try Migrator().migrate(connection).isEmpty)
        #expect(try Migrator().currentVersion(connection) == Migrator().latestVersion)
        let recorded = try connection.query("SELECT count(*) FROM schema_migrations").scalar
        #expect(recorded == String(EmbeddedSQL.migrations.count))
    }

    @Test func concurrentMigrationsTakeTurns() throws {
        let admin = try PostgresConnection(url: try TestPostgres.serverURL())
        let name = "t_fresh_" + String(UInt32.random(in: 0...UInt32.max))
        try admin.query("CREATE DATABASE \(name)")
        admin.close()
        let url = try TestPostgres.url(database: name)
        let applied = Tally()
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            do {
                let connection = try PostgresConnection(url: url)
                defer { connection.close() }
                applied.add(try Migrator().migrate(connection).count)
            } catch {
                applied.fail("\(error)")
            }
        }
        #expect(applied.failures.isEmpty)
        // Exactly one of the four applied everything; the others found nothing to do.
        #expect(applied.total == EmbeddedSQL.migrations.count)
    }

    @Test func anEditedMigrationIsRefused() throws {
        let db = try TestDatabase.create()
        try db.query("UPDATE schema_migrations SET checksum = 'edited' WHERE version = 1")
        let connection = try db.connect()
        defer { connection.close() }
        let refused = #expect(throws: DatabaseError.self) { try Migrator().migrate(connection) }
        #expect(refused?.query == "sql/migrations/0001_core.sql")
    }
}

import Synchronization
/// Collects results from concurrent workers.
final class Tally: Sendable {
    private let state = Mutex<(total: Int, failures: [String])>((0, []))
    func add(_ n: Int) { state.withLock { $0.total += n } }
    func fail(_ s: String) { state.withLock { $0.failures.append(s) } }
    var total: Int { state.withLock { $0.total } }
    var failures: [String] { state.withLock { $0.failures } }
}


@Suite struct AppStoreTests {
    @Test func keysResolveToTheirAppAndKind() throws {
        let db = try TestDatabase.create()
        let app = try db.createApp("alpha")
        let connection = try db.connect()
        defer { connection.close() }
        let store = AppStore()
        #expect(try store.resolve(app.writeKey, on: connection) == KeyIdentity(appId: app.appId, appName: "alpha", kind: .write, keyId: app.writeKey.keyId))
        #expect(try store.resolve(app.readKey, on: connection)?.kind == .read)
        // Right id, wrong secret: refused.
        var forged = app.writeKey
        forged.secret = String(forged.secret.reversed())
        #expect(try store.resolve(forged, on: connection) == nil)
        // A read key relabelled as a write key: refused.
        var relabelled = app.readKey
        relabelled.kind = .write
        #expect(try store.resolve(relabelled, on: connection) == nil)
        // Only the hash is stored.
        let stored = try connection.query("SELECT encode(secret_hash, 'hex') FROM api_keys WHERE key_id = $1", [app.writeKey.keyId]).scalar
        #expect(stored == SHA256.hex(Array(app.writeKey.secret.utf8)))
        #expect(try connection.query("SELECT count(*) FROM api_keys WHERE secret_hash::text LIKE '%' || $1 || '%'", [app.writeKey.secret]).scalar == "0")
    }

    @Test func duplicateAndInvalidNamesAreClearErrors() throws {
        let db = try TestDatabase.create()
        _ = try db.createApp("beta")
        #expect(throws: AppStoreError.self) { try db.createApp("beta") }
        #expect(throws: AppStoreError.self) { try db.createApp("no spaces") }
        #expect(throws: AppStoreError.self) { try db.createApp("") }
    }

    @Test func rotationKeepsTheOldKeyForTheGracePeriod() throws {
        let db = try TestDatabase.create()
        let app = try db.createApp("gamma")
        let connection = try db.connect()
        defer { connection.close() }
        let store = AppStore()
        let graced = try store.rotateKey(appNamed: "gamma", kind: .write, graceSeconds: 3600, on: connection)
        #expect(try store.resolve(graced, on: connection) != nil)
        #expect(try store.resolve(app.writeKey, on: connection) != nil)
        let revoking = try store.rotateKey(appNamed: "gamma", kind: .write, graceSeconds: 0, on: connection)
        #expect(try store.resolve(revoking, on: connection) != nil)
        #expect(try store.resolve(app.writeKey, on: connection) == nil)
        #expect(try store.resolve(graced, on: connection) == nil)
        // The read key is untouched by a write-key rotation.
        #expect(try store.resolve(app.readKey, on: connection) != nil)
        let listed = try store.listApps(on: connection).first { $0.name == "gamma" }
        #expect(listed?.activeWriteKeys == 1)
        #expect(listed?.activeReadKeys == 1)
    }
}

@Suite struct EventWriterTests {
    func batch(appId: Int64, events: [Event], context: DeviceContext = DeviceContext(appVersion: "1.0", platform: "iOS")) -> StagedBatch {
        StagedBatch(appId: appId, receivedAt: .now, context: context, events: events)
    }

    @Test func dedupsAcrossCommitsAndWithinAGroup() throws {
        let db = try TestDatabase.create()
        let app = try db.createApp()
        let writer = EventWriter(connection: try db.connect(), partitions: PartitionDays())
        defer { writer.connection.close() }
        let a = Event(eventId: .v7(at: .now), type: .delivered, deviceTime: .now, category: "message")
        let b = Event(eventId: .v7(at: .now), type: .delivered, deviceTime: .now, category: "message")
        let first = try writer.commit([batch(appId: app.appId, events: [a, b]), batch(appId: app.appId, events: [a])])
        #expect(first == [BatchOutcome(stored: 2, duplicates: 0), BatchOutcome(stored: 0, duplicates: 1)])
        let again = try writer.commit([batch(appId: app.appId, events: [b, a])])
        #expect(again == [BatchOutcome(stored: 0, duplicates: 2)])
        #expect(try db.query("SELECT count(*) FROM events").scalar == "2")
        // The same id in another app is another event.
        let other = try db.createApp()
        #expect(try writer.commit([batch(appId: other.appId, events: [a])]) == [BatchOutcome(stored: 1, duplicates: 0)])
    }

    @Test func createsPartitionsForOldDaysOnDemand() throws {
        let db = try TestDatabase.create()
        let app = try db.createApp()
        let writer = EventWriter(connection: try db.connect(), partitions: PartitionDays())
        defer { writer.connection.close() }
        let old = Timestamp.now.adding(seconds: -45 * 86_400)
        let event = Event(eventId: .v7(at: old), type: .delivered, deviceTime: old, category: "c")
        #expect(try writer.commit([batch(appId: app.appId, events: [event])]).first?.stored == 1)
        let partition = EventsPartition.name(day: old.utcDay)
        #expect(try db.query("SELECT to_regclass($1) IS NOT NULL", [partition]).scalar == "t")
        #expect(try db.query("SELECT tableoid::regclass::text FROM events").scalar == partition)
    }

    @Test func hostileStringsRoundTripByteExact() throws {
        let db = try TestDatabase.create()
        let app = try db.createApp()
        let writer = EventWriter(connection: try db.connect(), partitions: PartitionDays())
        defer { writer.connection.close() }
        let hostile = ["it's \"quoted\"", "back\\slash\\", "tab\there", "new\nline\r\n", "\\.", "line\n\\.\nend", "日本語 🚀 é",
                       "'; DROP TABLE events; --", "\u{7F}\u{1}\u{1F}", "$1 $$ %s {}", ""]
        var events: [Event] = []
        for (i, text) in hostile.enumerated() {
            events.append(Event(eventId: .v7(at: .now), type: .response, deviceTime: .now, notificationId: text, category: text,
                                actionIdentifier: "a" + text, userTextLength: Int32(i), campaign: text, variant: text))
        }
        let context = DeviceContext(appVersion: hostile[0], build: hostile[1], platform: hostile[2], osVersion: hostile[3], sdk: hostile[4], deviceId: hostile[6])
        #expect(try writer.commit([batch(appId: app.appId, events: events, context: context)]).first?.stored == hostile.count)
        let rows = try db.query("SELECT user_text_length, category, action_identifier, notification_id, campaign, variant, app_version, build, platform, os_version, sdk, device_id FROM events ORDER BY user_text_length").rows
        #expect(rows.count == hostile.count)
        for (i, row) in rows.enumerated() {
            #expect(row[1] == hostile[i])
            #expect(row[2] == "a" + hostile[i])
            #expect(row[3] == hostile[i] && row[4] == hostile[i] && row[5] == hostile[i])
            #expect(Array(row[1]!.utf8) == Array(hostile[i].utf8))
            #expect(row[6] == hostile[0] && row[7] == hostile[1] && row[8] == hostile[2] && row[9] == hostile[3])
            #expect(row[10] == hostile[4] && row[11] == hostile[6])
        }
    }

    @Test func storesEveryFieldExactly() throws {
        let db = try TestDatabase.create()
        let app = try db.createApp()
        let writer = EventWriter(connection: try db.connect(), partitions: PartitionDays())
        defer { writer.connection.close() }
        let id = EventID("01938a2e-7b1c-7d3e-9f00-123456789abc")!
        let device = Timestamp(iso8601: "2026-12-01T13:59:00.123456Z")!
        let corrected = Timestamp(iso8601: "2026-12-01T11:59:00.123456Z")!
        let delivered = Timestamp(iso8601: "2026-12-01T11:58:00Z")!
        let event = Event(eventId: id, type: .response, deviceTime: device, eventTime: corrected, timeClamped: false, notificationId: "apns-1",
                          category: "message", actionIdentifier: "reply", userTextLength: 14, hasMedia: true, mediaTypes: [.image, .audio],
                          mediaRequested: true, categoryRegistered: false, campaign: "winter", variant: "B", deliveredAt: delivered)
        _ = try writer.commit([batch(appId: app.appId, events: [event],
                                     context: DeviceContext(appVersion: "3.2.1", build: "412", platform: "iOS", osVersion: "18.1", sdk: "sdk/1", deviceId: nil))])
        let row = try #require(try db.query("""
            SELECT app_id, event_id, type, event_time, device_time, notification_id, category, action_identifier, user_text_length,
                   has_media, media_types, media_requested, category_registered, campaign, variant, delivered_at, app_version, build,
                   platform, os_version, sdk, device_id, time_clamped
            FROM events
            """).rows.first)
        #expect(row[0] == String(app.appId))
        #expect(row[1] == id.description)
        #expect(row[2] == "response")
        #expect(row[3] == "2026-12-01 11:59:00.123456+00")
        #expect(row[4] == "2026-12-01 13:59:00.123456+00")
        #expect(Array(row[5...14]) == ["apns-1", "message", "reply", "14", "t", "3", "t", "f", "winter", "B"])
        #expect(row[15] == "2026-12-01 11:58:00+00")
        #expect(Array(row[16...22]) == ["3.2.1", "412", "iOS", "18.1", "sdk/1", nil, "f"])
    }
}

@Suite struct ManifestStoreTests {
    @Test func storesOncePerContentAndTracksTheCurrentOne() throws {
        let db = try TestDatabase.create()
        let app = try db.createApp()
        let connection = try db.connect()
        defer { connection.close() }
        let store = ManifestStore()
        let v1 = Manifest(appVersion: "1.0", categories: [
            ManifestCategory(identifier: "message", options: ["customDismissAction"],
                             actions: [ManifestAction(identifier: "reply", options: ["foreground"], textInput: true)]),
        ])
        let first = try store.store(v1, appId: app.appId, on: connection)
        let repeatPost = try store.store(v1, appId: app.appId, on: connection)
        #expect(first.created && !repeatPost.created)
        #expect(first.manifestId == repeatPost.manifestId)
        var changed = v1
        changed.categories.append(ManifestCategory(identifier: "promo"))
        let second = try store.store(changed, appId: app.appId, on: connection)
        #expect(second.created && second.manifestId != first.manifestId)
        #expect(try connection.query("SELECT post_count FROM manifests WHERE manifest_id = $1", [String(first.manifestId)]).scalar == "2")
        #expect(try connection.query("SELECT count(*) FROM manifest_actions WHERE text_input").scalar == "2")
        let current = try store.currentManifests(appId: app.appId, on: connection)
        #expect(current["1.0"]?.categories.map(\.identifier).sorted() == ["message", "promo"])
        #expect(current["1.0"]?.category("message")?.hasCustomDismissAction == true)
    }

    /// A read through the cache (as the collector's reports do) sees a manifest posted again with
    /// other content at once: the cache is keyed on the content hash, so it never serves a stale
    /// manifest, and it gives what an uncached read gives.
    @Test func aCachedReadSeesAManifestPostedAgainWithOtherContent() throws {
        let db = try TestDatabase.create()
        let app = try db.createApp()
        let connection = try db.connect()
        defer { connection.close() }
        let store = ManifestStore(), cache = ManifestCache(capacity: 2)
        func read() throws -> [String: Manifest] {
            let cached = try store.currentManifests(appId: app.appId, on: connection, cache: cache)
            #expect(cached == (try store.currentManifests(appId: app.appId, on: connection)))
            return cached
        }
        let plain = Manifest(appVersion: "1.0", categories: [ManifestCategory(identifier: "message")])
        _ = try store.store(plain, appId: app.appId, on: connection)
        #expect(try read()["1.0"]?.category("message")?.hasCustomDismissAction == false)
        #expect(cache.count == 1)
        #expect(try read()["1.0"] == plain, "read again: the cached one")

        var dismissable = plain
        dismissable.categories = [ManifestCategory(identifier: "message", options: ["customDismissAction"])]
        _ = try store.store(dismissable, appId: app.appId, on: connection)
        #expect(try read()["1.0"]?.category("message")?.hasCustomDismissAction == true)
        #expect(cache.count == 2)

        // The first content posted again is in force again, and comes from the cache.
        _ = try store.store(plain, appId: app.appId, on: connection)
        #expect(try read()["1.0"]?.category("message")?.hasCustomDismissAction == false)

        // A third content and a second version: the cache keeps its capacity, the reads stay right.
        _ = try store.store(Manifest(appVersion: "2.0", categories: [ManifestCategory(identifier: "promo")]), appId: app.appId, on: connection)
        let both = try read()
        #expect(both.keys.sorted() == ["1.0", "2.0"])
        #expect(both["2.0"]?.category("promo") != nil)
        #expect(cache.count == 2)
    }
}

@Suite struct ManifestCacheTests {
    /// Bounded: past its capacity the oldest manifest goes, and the newest stay.
    @Test func holdsAtMostItsCapacityDroppingTheOldest() {
        let cache = ManifestCache(capacity: 2)
        let manifests = (1...3).map { Manifest(appVersion: "\($0).0", categories: [ManifestCategory(identifier: "message")]) }
        for manifest in manifests { cache.insert(manifest, contentHash: manifest.contentHash) }
        #expect(cache.count == 2)
        #expect(cache.manifest(contentHash: manifests[0].contentHash) == nil)
        #expect(cache.manifest(contentHash: manifests[1].contentHash) == manifests[1])
        #expect(cache.manifest(contentHash: manifests[2].contentHash) == manifests[2])
        // The same content again takes no second place.
        cache.insert(manifests[2], contentHash: manifests[2].contentHash)
        #expect(cache.count == 2)
        #expect(cache.manifest(contentHash: manifests[1].contentHash) == manifests[1])
    }
}
