import Foundation
import Synchronization
import TapwireStatistics
import Testing
import TapwireCore
@testable import TapwireStore
import TapwireTestSupport

/// The group commit adds rollup rows computed in Swift (`RollupDeltas`); the tests' oracle
/// recomputes them in SQL (sql/fresh/, `RollupOracle`), and `tapwire rollups rebuild` with the
/// Swift code again. These hold the three equal, and the SQL and Swift histogram bins equal,
/// against the real PostgreSQL.
@Suite struct RollupDeltaMergeTests {
    static func randomEvent(_ rng: inout SeededGenerator, around now: Timestamp) -> Event {
        let time = now.adding(microseconds: -Int64.random(in: 0...(50 * 3_600_000_000), using: &rng))
        // Engagement's types: conversions and assignments have aggregates of their own.
        let type = [EventType.delivered, .response, .sent].randomElement(using: &rng)!
        let action = type == .response ? [SystemAction.open, SystemAction.dismiss, "reply", "like"].randomElement(using: &rng)! : nil
        return Event(eventId: .v7(at: time, using: &rng), type: type, deviceTime: time,
                     category: ["chat", "promo", "Chat", "tab\there"].randomElement(using: &rng)!, actionIdentifier: action,
                     userTextLength: action == "reply" ? Int32.random(in: 0...700, using: &rng) : nil, hasMedia: Bool.random(using: &rng),
                     mediaRequested: type == .delivered ? Bool.random(using: &rng) : nil,
                     categoryRegistered: [true, false, nil].randomElement(using: &rng)!, campaign: ["w", nil].randomElement(using: &rng)!,
                     variant: ["A", "B", nil].randomElement(using: &rng)!,
                     deliveredAt: type == .response && Bool.random(using: &rng)
                        ? time.adding(microseconds: -Int64(exp(Double.random(in: 0...13, using: &rng)) * 1_000_000)) : nil)
    }

    /// `days` UTC days from `first`, each one commit of random events of one release (two
    /// releases alternating), for the rebuild tests.
    static func writeDays(_ days: Int, eventsPerDay: Int, from first: Int64, app: CreatedApp, db: TestDatabase,
                          rng: inout SeededGenerator) throws {
        let day: Int64 = 86_400_000_000
        let writer = EventWriter(connection: try db.connect(), partitions: PartitionDays())
        defer { writer.connection.close() }
        for g in 0..<days {
            let events = (0..<eventsPerDay).map { _ in
                Self.randomEvent(&rng, around: Timestamp(microseconds: first + Int64(g) * day + 50 * 3_600_000_000
                                                        + Int64.random(in: 0..<day, using: &rng)))
            }
            try writer.commit([StagedBatch(appId: app.appId, receivedAt: .now,
                                           context: DeviceContext(appVersion: ["1.0", "1.1"][g % 2], platform: ["iOS", "macOS"][g % 2]),
                                           events: events)])
        }
    }

    /// Three writers on their own connections (three collectors on one database) commit
    /// overlapping groups at once: in-batch repeats, ids other writers store, whole groups sent
    /// again. Every id is stored once and the rollups equal a rebuild from the events.
    @Test func concurrentWritersWithDuplicatesMatchARebuild() throws {
        let db = try TestDatabase.create()
        let app = try db.createApp()
        var rng = SeededGenerator(seed: 77)
        let now = Timestamp.now
        let pool = (0..<3000).map { _ in Self.randomEvent(&rng, around: now) }
        var groups: [[StagedBatch]] = []
        for g in 0..<45 {
            var batches: [StagedBatch] = []
            for b in 0..<Int.random(in: 1...4, using: &rng) {
                var events = (0..<Int.random(in: 1...120, using: &rng)).map { _ in pool.randomElement(using: &rng)! }
                if let repeated = events.first { events.append(repeated) }
                batches.append(StagedBatch(appId: app.appId, receivedAt: now,
                                           context: DeviceContext(appVersion: ["1.0", "1.1"][(g + b) % 2], platform: ["iOS", "watchOS"][b % 2]),
                                           events: events))
            }
            groups.append(batches)
        }
        groups += groups.prefix(5) // whole groups again
        let failures = Mutex<[String]>([])
        let storedTotal = Atomic<Int>(0)
        let toCommit = groups
        DispatchQueue.concurrentPerform(iterations: 3) { w in
            do {
                let writer = EventWriter(connection: try db.connect(), partitions: PartitionDays(), claimStrategy: ClaimStrategy(cautiousGroups: 1))
                defer { writer.connection.close() }
                for (i, group) in toCommit.enumerated() where i % 3 == w {
                    let outcomes = try writer.commit(group)
                    storedTotal.add(outcomes.reduce(0) { $0 + $1.stored }, ordering: .relaxed)
                    for (batch, outcome) in zip(group, outcomes) where outcome.stored + outcome.duplicates != batch.events.count {
                        failures.withLock { $0.append("outcome \(outcome) for \(batch.events.count) events") }
                    }
                }
            } catch {
                failures.withLock { $0.append("\(error)") }
            }
        }
        #expect(failures.withLock { $0 }.isEmpty)
        let distinct = Set(groups.flatMap { $0.flatMap { $0.events.map(\.eventId) } }).count
        #expect(try db.query("SELECT count(*) FROM events WHERE app_id = $1::bigint", [String(app.appId)]).scalar == String(distinct))
        #expect(storedTotal.load(ordering: .relaxed) == distinct, "each id counted as stored exactly once")

        let connection = try db.connect()
        defer { connection.close() }
        #expect(try RollupStore().fold(on: connection) > 0)
        #expect(try RollupStore().fold(on: connection) == 0, "a fold takes every pending delta")
        let incremental = try RollupSnapshot.rows(appId: app.appId, on: connection)
        #expect(incremental.count > 500)
        let oracle = try RollupSnapshot.recomputedByOracle(appId: app.appId, on: connection)
        #expect(oracle.count == incremental.count)
        #expect(oracle == incremental, "rollups merged from Swift deltas differ from the SQL recomputation")
        // `rollups rebuild` streams the events through the same Swift code: it must agree too,
        // starting from rollups that are wrong.
        try connection.query("DELETE FROM rollup_total_histograms WHERE app_id = $1::bigint", [String(app.appId)])
        try connection.query("UPDATE rollup_uplift_days SET weights = weights + 1 WHERE app_id = $1::bigint", [String(app.appId)])
        try connection.query("UPDATE mismatch_usage_daily SET event_count = event_count + 5 WHERE app_id = $1::bigint", [String(app.appId)])
        let range = try #require(try RollupStore().eventHours(appId: app.appId, on: connection))
        let days = try RollupStore().rebuild(appId: app.appId, from: range.from, to: range.to, on: connection)
        #expect(days.reduce(0) { $0 + $1.eventsRecomputed } == distinct)
        #expect(try RollupSnapshot.rows(appId: app.appId, on: connection) == oracle, "rollups rebuild differs from the SQL recomputation")
    }

    /// The rebuild makes each block of 2 to 16 days once, from its days, in the transaction of
    /// the last of its days it recomputes: over 40 days (blocks of every size, cut by the range
    /// at both ends), the blocks a rebuild touches equal the fold's, whatever they held, and a
    /// block outside the rebuilt range is left as it was.
    @Test func aRebuildMakesEachBlockOfDaysOnceFromItsDays() throws {
        let db = try TestDatabase.create()
        let app = try db.createApp()
        var rng = SeededGenerator(seed: 4033)
        let day: Int64 = 86_400_000_000
        let first = RollupDeltas.floor(Timestamp.now.microseconds, day) - 44 * day
        let writer = EventWriter(connection: try db.connect(), partitions: PartitionDays())
        defer { writer.connection.close() }
        // What `tapwire rollups rebuild --from --to` asks instead of the range's hours.
        #expect(try RollupStore().hasEvents(appId: app.appId, on: writer.connection) == false)
        #expect(try RollupStore().hasEvents(appId: nil, on: writer.connection) == false)
        for g in 0..<40 {
            // randomEvent goes back up to 50 hours from `around`: the events of day g and the next two.
            let events = (0..<60).map { _ in
                Self.randomEvent(&rng, around: Timestamp(microseconds: first + Int64(g) * day + 50 * 3_600_000_000
                                                        + Int64.random(in: 0..<day, using: &rng)))
            }
            try writer.commit([StagedBatch(appId: app.appId, receivedAt: .now,
                                           context: DeviceContext(appVersion: ["1.0", "1.1"][g % 2], platform: "iOS"), events: events)])
        }
        let connection = try db.connect()
        defer { connection.close() }
        #expect(try RollupStore().hasEvents(appId: app.appId, on: connection))
        #expect(try RollupStore().hasEvents(appId: nil, on: connection))
        #expect(try RollupStore().hasEvents(appId: app.appId + 1_000, on: connection) == false)
        try RollupStore().fold(on: connection)
        let folded = try RollupSnapshot.rows(appId: app.appId, on: connection)
        let app1 = [String(app.appId)]
        let blocks = "app_id = $1::bigint AND grain >= 3"
        #expect(Int(try connection.query("SELECT count(DISTINCT (grain, bucket)) FROM rollup_totals WHERE \(blocks)", app1).scalar ?? "") ?? 0 > 12)
        /// Adds `by` to every block row the predicate picks (and drops their histograms when asked).
        func damage(_ predicate: String, by n: Int = 1, histograms: Bool = true) throws {
            try connection.query("UPDATE rollup_totals SET delivered = delivered + \(n) WHERE \(blocks) AND \(predicate)", app1)
            try connection.query("UPDATE rollup_total_actions SET n = n + \(n) WHERE \(blocks) AND \(predicate)", app1)
            try connection.query("UPDATE rollup_dismiss_base SET dismissals = dismissals + \(n) WHERE \(blocks) AND \(predicate)", app1)
            if histograms { try connection.query("DELETE FROM rollup_total_histograms WHERE \(blocks) AND \(predicate)", app1) }
        }
        // The whole range, every block damaged first.
        try damage("true")
        #expect(try RollupSnapshot.rows(appId: app.appId, on: connection) != folded)
        let range = try #require(try RollupStore().eventHours(appId: app.appId, on: connection))
        try RollupStore().rebuild(appId: app.appId, from: range.from, to: range.to, on: connection)
        #expect(try RollupSnapshot.rows(appId: app.appId, on: connection) == folded, "a rebuild's blocks differ from the fold's")
        // Days 7 to 29 (blocks cut at both ends): the blocks that hold any of them are made again
        // from all their days; the 2-day block of the first day is outside and stays as it was.
        func instant(_ microseconds: Int64) -> String { "'\(Timestamp(microseconds: microseconds).iso8601(fractionDigits: 0))'::timestamptz" }
        let from = first + 7 * day, to = first + 29 * day
        try damage("bucket < \(instant(to)) AND bucket + (1 << (grain - 2)) * interval '1 day' > \(instant(from))")
        let outside = "grain = 3 AND bucket = \(instant(RollupRows.Grain.block(of: first, grain: 3)))"
        try damage(outside, histograms: false)
        try RollupStore().rebuild(appId: app.appId, from: Timestamp(microseconds: from), to: Timestamp(microseconds: to), on: connection)
        try damage(outside, by: -1, histograms: false)
        #expect(try RollupSnapshot.rows(appId: app.appId, on: connection) == folded,
                "the blocks a rebuild of days 7 to 29 touches differ from the fold's, or it touched one outside")
    }

    /// A rebuild replaces a day's rows in place (migration 0310): over rollups that already equal
    /// the events it writes no row (every row keeps its version: the same ctid, the same xmin),
    /// and over wrong ones it repairs only what is wrong: a changed value, a key the events do not
    /// have (deleted, in a day and in a block), a key they have that is missing (inserted).
    @Test func aRebuildWritesOnlyTheRowsThatDiffer() throws {
        let db = try TestDatabase.create()
        let app = try db.createApp()
        var rng = SeededGenerator(seed: 310)
        let day: Int64 = 86_400_000_000
        let first = RollupDeltas.floor(Timestamp.now.microseconds, day) - 12 * day
        try Self.writeDays(8, eventsPerDay: 80, from: first, app: app, db: db, rng: &rng)
        let connection = try db.connect()
        defer { connection.close() }
        try RollupStore().fold(on: connection)
        let folded = try RollupSnapshot.rows(appId: app.appId, on: connection)
        let app1 = [String(app.appId)]
        let tables = try connection.query("""
            SELECT c.relname FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid AND a.attname = 'app_id'
            WHERE c.relkind = 'r' AND c.relnamespace = current_schema()::regnamespace
              AND (c.relname LIKE 'rollup\\_%' OR c.relname LIKE 'mismatch\\_usage\\_%')
              AND c.relname NOT IN ('rollup_deltas', 'rollup_fold_rows', 'rollup_delta_batches')
            ORDER BY 1
            """).rows.compactMap { $0[0] }
        #expect(tables.contains("rollup_strata") && tables.contains("rollup_dismiss_blocks") && tables.count > 15)
        /// Every row version of the app's rollups, table by table: where it is and who wrote it.
        func versions() throws -> [String: String] {
            var result: [String: String] = [:]
            for table in tables {
                result[table] = try connection.query(
                    "SELECT count(*) || ' ' || coalesce(string_agg(ctid::text || xmin::text, ',' ORDER BY ctid), '') FROM \(table) WHERE app_id = $1::bigint",
                    app1).scalar
            }
            return result
        }
        let before = try versions()
        #expect(Int(before["rollup_totals"]?.split(separator: " ").first ?? "") ?? 0 > 100)
        let range = try #require(try RollupStore().eventHours(appId: app.appId, on: connection))
        let days = try RollupStore().rebuild(appId: app.appId, from: range.from, to: range.to, on: connection)
        #expect(days.count >= 8)
        #expect(try RollupSnapshot.rows(appId: app.appId, on: connection) == folded)
        let after = try versions()
        for table in tables {
            #expect(after[table] == before[table], "a rebuild of right rollups wrote rows of \(table)")
        }
        // Wrong rollups: a day's value changed, keys the events do not have (a day's, a block's,
        // a stratum's), a day's row and a stratum missing.
        try connection.query("UPDATE rollup_totals SET delivered = delivered + 3 WHERE app_id = $1::bigint AND grain = 2", app1)
        try connection.query("""
            INSERT INTO rollup_totals (app_id, grain, bucket, category, has_media, delivered, sent, media_requested, opens, dismissals, actions, replies)
            SELECT app_id, grain, bucket, 'no such category', has_media, 1, 1, 1, 1, 1, 1, 1 FROM rollup_totals
            WHERE app_id = $1::bigint AND grain IN (2, 4) AND category = 'chat'
            """, app1)
        try connection.query("""
            INSERT INTO rollup_strata (app_id, day, category, campaign, platform, rich_delivered, rich_engaged, text_delivered, text_engaged)
            SELECT app_id, day, category, 'no such campaign', platform, 5, 1, 5, 2 FROM rollup_strata WHERE app_id = $1::bigint
            ON CONFLICT DO NOTHING
            """, app1)
        try connection.query("""
            DELETE FROM rollup_strata WHERE app_id = $1::bigint AND (day, category, campaign, platform) IN
                (SELECT day, category, campaign, platform FROM rollup_strata WHERE app_id = $1::bigint AND campaign <> 'no such campaign' LIMIT 3)
            """, app1)
        try connection.query("DELETE FROM rollup_release_counts WHERE app_id = $1::bigint AND category = 'promo'", app1)
        try connection.query("UPDATE rollup_uplift_days SET p = p + 1 WHERE app_id = $1::bigint", app1)
        // The mismatch usage, whose rows the replacement takes as the rebuild wrote them (0311,
        // without grouping them again): a changed count, a key the events do not have, a missing key.
        for table in ["mismatch_usage_hourly", "mismatch_usage_daily"] {
            let time = table == "mismatch_usage_hourly" ? "bucket" : "day"
            try connection.query("""
                UPDATE \(table) SET event_count = event_count + 2, last_seen = last_seen + interval '1 second'
                WHERE app_id = $1::bigint AND ctid = (SELECT min(ctid) FROM \(table) WHERE app_id = $1::bigint)
                """, app1)
            try connection.query("""
                INSERT INTO \(table) (app_id, \(time), app_version, platform, type, category, action, category_registered, event_count, first_seen, last_seen)
                SELECT app_id, \(time), app_version, platform, type, 'no such category', action, category_registered, 1, first_seen, last_seen
                FROM \(table) WHERE app_id = $1::bigint ORDER BY ctid LIMIT 2
                """, app1)
            try connection.query("""
                DELETE FROM \(table) WHERE app_id = $1::bigint AND ctid = (SELECT max(ctid) FROM \(table) WHERE app_id = $1::bigint AND category <> 'no such category')
                """, app1)
        }
        #expect(try RollupSnapshot.rows(appId: app.appId, on: connection) != folded)
        try RollupStore().rebuild(appId: app.appId, from: range.from, to: range.to, on: connection)
        #expect(try RollupSnapshot.rows(appId: app.appId, on: connection) == folded, "a rebuild did not repair the rollups")
        let repaired = try versions()
        // What was right before the damage keeps its version.
        for table in ["rollup_total_actions", "rollup_total_histograms", "rollup_trend", "rollup_dismiss_quarters", "rollup_marginals",
                      "rollup_release_actions"] {
            #expect(repaired[table] == before[table], "a rebuild rewrote rows of \(table) that were right")
        }
    }

    /// A rebuild stages each day's rows in its session's temporary table (migration 0313), not
    /// in rollup_deltas, which is logged: over rollups that equal the events, no row goes into
    /// rollup_deltas, and the rollups are the fold's. Two rebuilds in one session (the table and
    /// the prepared statement kept from the first), and one in another session, agree.
    @Test func aRebuildStagesItsRowsOutsideRollupDeltas() throws {
        let db = try TestDatabase.create()
        let app = try db.createApp()
        var rng = SeededGenerator(seed: 313)
        let day: Int64 = 86_400_000_000
        let first = RollupDeltas.floor(Timestamp.now.microseconds, day) - 6 * day
        try Self.writeDays(4, eventsPerDay: 60, from: first, app: app, db: db, rng: &rng)
        let connection = try db.connect()
        defer { connection.close() }
        try RollupStore().fold(on: connection)
        let folded = try RollupSnapshot.rows(appId: app.appId, on: connection)
        let range = try #require(try RollupStore().eventHours(appId: app.appId, on: connection))
        /// The rows this session has inserted into rollup_deltas (its statistics, flushed now).
        func deltasInserted() throws -> Int {
            try connection.query("SELECT pg_stat_force_next_flush()")
            return Int(try connection.query("SELECT n_tup_ins FROM pg_stat_user_tables WHERE relname = 'rollup_deltas'").scalar ?? "") ?? -1
        }
        let inserted = try deltasInserted()
        #expect(inserted >= 0)
        for _ in 0..<2 {
            let days = try RollupStore().rebuild(appId: app.appId, from: range.from, to: range.to, on: connection)
            #expect(days.count >= 4 && days.reduce(0) { $0 + $1.eventsRecomputed } == 240)
            #expect(try RollupSnapshot.rows(appId: app.appId, on: connection) == folded)
            #expect(try deltasInserted() == inserted)
        }
        // The staging table is this session's, temporary, and empty between days.
        #expect(try connection.query("""
            SELECT c.relpersistence::text || ' ' || (SELECT count(*) FROM tapwire_rebuild_rows)
            FROM pg_class c WHERE c.oid = 'tapwire_rebuild_rows'::regclass
            """).scalar == "t 0")
        let other = try db.connect()
        defer { other.close() }
        _ = try RollupStore().rebuild(appId: app.appId, from: range.from, to: range.to, on: other)
        #expect(try RollupSnapshot.rows(appId: app.appId, on: connection) == folded)
    }

    /// A fold stages its rows in rollup_fold_rows, unlogged (migration 0320): they never outlive
    /// the fold's transaction, so writing them to WAL, as rollup_deltas did, bought nothing. The
    /// rollups still equal the SQL oracle, and the function still takes the rows an earlier
    /// collector's fold stages in rollup_deltas (collectors of both versions run side by side).
    @Test func aFoldStagesItsRowsInAnUnloggedTable() throws {
        let db = try TestDatabase.create()
        let app = try db.createApp()
        var rng = SeededGenerator(seed: 320)
        let now = Timestamp.now
        let connection = try db.connect()
        defer { connection.close() }
        let writer = EventWriter(connection: connection, partitions: PartitionDays())
        let events = (0..<300).map { _ in Self.randomEvent(&rng, around: now) }
        let batch = StagedBatch(appId: app.appId, receivedAt: now, context: DeviceContext(appVersion: "3.0", platform: "iOS"), events: events)
        #expect(try writer.commit([batch]).first?.stored == 300)
        /// The rows this session has inserted into `table` (its statistics, flushed now).
        func inserted(_ table: String) throws -> Int {
            try connection.query("SELECT pg_stat_force_next_flush()")
            return Int(try connection.query("SELECT n_tup_ins FROM pg_stat_user_tables WHERE relname = $1", [table]).scalar ?? "") ?? -1
        }
        let before = try inserted("rollup_deltas")
        #expect(before >= 0)
        #expect(try RollupStore().fold(on: connection) > 0)
        #expect(try inserted("rollup_deltas") == before, "the fold staged its rows in rollup_deltas")
        #expect(try inserted("rollup_fold_rows") > 0)
        #expect(try connection.query("SELECT relpersistence::text FROM pg_class WHERE oid = 'rollup_fold_rows'::regclass").scalar == "u")
        #expect(try connection.query("SELECT (SELECT count(*) FROM rollup_fold_rows) + (SELECT count(*) FROM rollup_deltas)").scalar == "0")
        let folded = try RollupSnapshot.rows(appId: app.appId, on: connection)
        #expect(try RollupSnapshot.recomputedByOracle(appId: app.appId, on: connection) == folded)

        // An earlier collector's fold: its rows into rollup_deltas, then the function, in one
        // transaction; the function upserts them as before.
        let usage = "SELECT sum(event_count) FROM mismatch_usage_hourly WHERE app_id = $1::bigint AND category = 'earlier'"
        #expect(try connection.query(usage, [String(app.appId)]).scalar == nil)
        try connection.transaction { () throws(DatabaseError) in
            try connection.query("""
                INSERT INTO rollup_deltas (kind, app_id, bucket, category, app_version, platform, action, type, category_registered, n1,
                                           first_seen, last_seen)
                VALUES (4, $1::bigint, date_trunc('hour', now()), 'earlier', '3.0', 'iOS', '', 'delivered', 1, 7, now(), now())
                """, [String(app.appId)])
            #expect(try connection.query("SELECT tapwire_fold_rollups()").scalar == "1")
        }
        #expect(try connection.query(usage, [String(app.appId)]).scalar == "7")
        #expect(try connection.query("SELECT count(*) FROM rollup_deltas").scalar == "0")
    }

    /// Pending batches of more apps than a fold takes at once: one fold takes every app's, a few
    /// apps at a time, and each app's rollups equal the SQL oracle.
    @Test func aFoldTakesManyAppsAFewAtATime() throws {
        let db = try TestDatabase.create()
        let apps = try (0..<(2 * RollupStore.foldAppsAtOnce + 3)).map { _ in try db.createApp() }
        var rng = SeededGenerator(seed: 91)
        let now = Timestamp.now
        let writer = EventWriter(connection: try db.connect(), partitions: PartitionDays())
        defer { writer.connection.close() }
        for _ in 0..<3 {
            try writer.commit(apps.map { app in
                StagedBatch(appId: app.appId, receivedAt: now, context: DeviceContext(appVersion: "2.0", platform: "iOS"),
                            events: (0..<5).map { _ in Self.randomEvent(&rng, around: now) })
            })
        }
        let connection = try db.connect()
        defer { connection.close() }
        #expect(try connection.query("SELECT count(DISTINCT app_id) FROM rollup_delta_batches").scalar == String(apps.count))
        #expect(try RollupStore().fold(on: connection) > 0)
        #expect(try connection.query("SELECT count(*) FROM rollup_delta_batches").scalar == "0", "one fold takes every app's batches")
        #expect(try RollupStore().fold(on: connection) == 0)
        for app in [apps[0], apps[RollupStore.foldAppsAtOnce], apps[apps.count - 1]] {
            let incremental = try RollupSnapshot.rows(appId: app.appId, on: connection)
            #expect(!incremental.isEmpty)
            #expect(try RollupSnapshot.recomputedByOracle(appId: app.appId, on: connection) == incremental, "app \(app.appId)")
        }
    }

    /// Two texts that differ in their bytes but are canonically equivalent ("café" composed and
    /// decomposed) are two categories on the device (a notification category's identifier is
    /// compared literally) and two groups in SQL: the fold and the rebuild keep them two rows as
    /// the oracle does, where keys compared as `String`s (canonical equivalence) merged them
    /// (docs/reports.md, "Texts compared by their bytes").
    @Test func canonicallyEquivalentTextsAreTwoCategoriesAsInSQL() throws {
        let db = try TestDatabase.create()
        let app = try db.createApp()
        let now = Timestamp.now
        var rng = SeededGenerator(seed: 3)
        let writer = EventWriter(connection: try db.connect(), partitions: PartitionDays())
        defer { writer.connection.close() }
        let events = ["caf\u{E9}", "cafe\u{301}", "caf\u{E9}"].map { category in
            Event(eventId: .v7(at: now, using: &rng), type: .response, deviceTime: now, category: category,
                  actionIdentifier: ["r\u{E9}ply", "re\u{301}ply"].randomElement(using: &rng)!, userTextLength: nil, hasMedia: false,
                  mediaRequested: nil, categoryRegistered: true, campaign: "\u{C5}", variant: nil, deliveredAt: nil)
        }
        try writer.commit([StagedBatch(appId: app.appId, receivedAt: now, context: DeviceContext(appVersion: "2.0", platform: "iOS"),
                                       events: events)])
        let connection = try db.connect()
        defer { connection.close() }
        #expect(try RollupStore().fold(on: connection) > 0)
        let totals = "SELECT count(*) FROM rollup_totals WHERE app_id = $1::bigint AND grain = 0"
        #expect(try connection.query(totals, [String(app.appId)]).scalar == "2", "the fold merged canonically equivalent categories")
        let folded = try RollupSnapshot.rows(appId: app.appId, on: connection)
        #expect(try RollupSnapshot.recomputedByOracle(appId: app.appId, on: connection) == folded)
        #expect(try connection.query(totals, [String(app.appId)]).scalar == "2", "the oracle keeps the two byte strings apart")
        let range = try #require(try RollupStore().eventHours(appId: app.appId, on: connection))
        try RollupStore().rebuild(appId: app.appId, from: range.from, to: range.to, on: connection)
        #expect(try RollupSnapshot.rows(appId: app.appId, on: connection) == folded, "the rebuild differs from the fold")
        #expect(try connection.query(totals, [String(app.appId)]).scalar == "2")
    }

    /// A bulk claim that meets an id stored before is rolled back and claimed again, skipping it;
    /// nothing of the failed attempt remains.
    @Test func aBulkClaimThatMeetsAStoredIdFallsBackToSkipping() throws {
        let db = try TestDatabase.create()
        let app = try db.createApp()
        let writer = EventWriter(connection: try db.connect(), partitions: PartitionDays(), claimStrategy: ClaimStrategy(cautiousGroups: 2))
        defer { writer.connection.close() }
        var rng = SeededGenerator(seed: 5)
        let events = (0..<50).map { _ in Self.randomEvent(&rng, around: .now) }
        let context = DeviceContext(appVersion: "1", platform: "iOS")
        func batch(_ e: [Event]) -> StagedBatch { StagedBatch(appId: app.appId, receivedAt: .now, context: context, events: e) }
        #expect(try writer.commit([batch(Array(events[0..<20]))]) == [BatchOutcome(stored: 20, duplicates: 0)])
        #expect(writer.claimStrategy.mode == .bulk)
        #expect(try writer.commit([batch(Array(events[10..<50]))]) == [BatchOutcome(stored: 30, duplicates: 10)])
        #expect(writer.claimStrategy.mode == .skipping)
        #expect(try db.query("SELECT count(*) FROM events").scalar == "50")
        try RollupStore().fold(on: writer.connection)
        #expect(try db.query("SELECT sum(event_count) FROM mismatch_usage_hourly").scalar == "50")
        #expect(try db.query("SELECT sum(delivered + sent) + sum(opens + dismissals + actions) FROM rollup_totals WHERE grain = 2").scalar
                == String(events.filter { $0.type != .response || $0.actionIdentifier != nil }.count))
        // Two clean groups later, bulk again.
        #expect(try writer.commit([batch([Self.randomEvent(&rng, around: .now)])]).first?.stored == 1)
        #expect(try writer.commit([batch([Self.randomEvent(&rng, around: .now)])]).first?.stored == 1)
        #expect(writer.claimStrategy.mode == .bulk)
    }

    /// A collector of the version before migration 0150, still running during a rolling upgrade,
    /// folds through tapwire_fold_rollup_deltas(), which would write the tables 0150 replaced: it
    /// fails as a server that cannot take the work now (57P03, which that collector answers with 503)
    /// and takes nothing, so the batches its commits and this version's
    /// appended stay for this version's fold, which folds each exactly once. A fold that fails
    /// after taking the batches rolls back too, leaving them for the next.
    @Test func aPreviousVersionsFoldFailsAndLeavesItsBatches() throws {
        let db = try TestDatabase.create()
        let app = try db.createApp()
        let connection = try db.connect()
        defer { connection.close() }
        var rng = SeededGenerator(seed: 31)
        let context = DeviceContext(appVersion: "1.0", platform: "iOS", osVersion: "18.2")
        let now = Timestamp.now
        let ours = StagedBatch(appId: app.appId, receivedAt: now, context: context,
                               events: (0..<400).map { _ in Self.randomEvent(&rng, around: now) })
        let writer = EventWriter(connection: connection, partitions: PartitionDays())
        #expect(try writer.commit([ours]).first?.stored == 400)
        #expect(try db.query("SELECT count(*) FROM rollup_delta_batches").scalar == "1")

        // The previous version's fold: it takes the batch, writes its rows to rollup_deltas and
        // calls the function of its day, in one transaction.
        do {
            try connection.transaction { () throws(DatabaseError) in
                try connection.query("DELETE FROM rollup_delta_batches")
                try connection.query("""
                    INSERT INTO rollup_deltas (kind, app_id, grain, bucket, category, app_version, platform, campaign, variant, has_media, n1, n2,
                                               n3, n4, n5, n6, n7)
                    VALUES (1, $1::bigint, 1, now(), 'chat', '1.0', '', '', '', true, 1, 0, 0, 0, 0, 0, 0)
                    """, [String(app.appId)])
                try connection.query("SELECT tapwire_fold_rollup_deltas()")
            }
            Issue.record("the previous version's fold succeeded")
        } catch {
            #expect(error.sqlState == "57P03" && error.isUnavailable)
        }
        #expect(try db.query("SELECT count(*) FROM rollup_delta_batches").scalar == "1")
        #expect(try db.query("SELECT count(*) FROM rollup_deltas").scalar == "0")

        // A fold whose upsert fails (a rollup table is locked away from it, and the fold is
        // cancelled once it waits for it: a fold turns the server's lock_timeout off,
        // docs/deployment.md, "The server's timeouts") takes nothing.
        let blocker = try db.connect()
        defer { blocker.close() }
        try blocker.query("BEGIN")
        try blocker.query("LOCK TABLE rollup_total_histograms IN ACCESS EXCLUSIVE MODE")
        let pid = String(connection.backendPID)
        Thread {
            _ = eventually(timeout: 60) {
                (try? db.query("SELECT count(*) FROM pg_stat_activity WHERE pid = $1::integer AND wait_event_type = 'Lock'", [pid]).scalar) == "1"
            }
            _ = try? db.query("SELECT pg_cancel_backend($1::integer)", [pid])
        }.start()
        #expect(throws: DatabaseError.self) { try RollupStore().fold(on: connection) }
        try blocker.query("ROLLBACK")
        #expect(try db.query("SELECT count(*) FROM rollup_delta_batches").scalar == "1")

        #expect(try RollupStore().fold(on: connection) > 0)
        #expect(try db.query("SELECT count(*) FROM rollup_delta_batches").scalar == "0")
        #expect(try db.query("SELECT count(*) FROM rollup_deltas").scalar == "0")
        let folded = try RollupSnapshot.rows(appId: app.appId, on: connection)
        #expect(try RollupSnapshot.recomputedByOracle(appId: app.appId, on: connection) == folded)
        #expect(try db.query("SELECT count(*) FROM rollup_marginals WHERE dimension = 'os' AND value = '18'").scalar != "0")
    }

    /// A reader whose role may not write still reads: with nothing pending its fold writes
    /// nothing and succeeds; with a batch pending the fold is refused, and a reader skips it
    /// rather than failing, leaving the batch for a writer's fold.
    @Test func aReadOnlyReaderSkipsTheFold() throws {
        let db = try TestDatabase.create()
        let app = try db.createApp()
        let connection = try db.connect()
        defer { connection.close() }
        try connection.query("SET default_transaction_read_only = on")
        #expect(try RollupStore().fold(on: connection) == 0)

        let writer = try db.connect()
        defer { writer.close() }
        var rng = SeededGenerator(seed: 5)
        let now = Timestamp.now
        let batch = StagedBatch(appId: app.appId, receivedAt: now, context: DeviceContext(appVersion: "1.0", platform: "iOS"),
                                events: (0..<10).map { _ in Self.randomEvent(&rng, around: now) })
        #expect(try EventWriter(connection: writer, partitions: PartitionDays()).commit([batch]).first?.stored == 10)
        #expect(throws: DatabaseError.self) { try RollupStore().fold(on: connection) }
        try RollupStore().foldBeforeReading(on: connection)
        #expect(try connection.query("SELECT 1").scalar == "1")
        #expect(try db.query("SELECT count(*) FROM rollup_delta_batches").scalar == "1")
    }

    /// tapwire_latency_bin (SQL) and LatencyBins.bin(forMicroseconds:) (Swift) agree on bin
    /// edges, powers of two, sub-second, negative and multi-day latencies.
    @Test func latencyBinsAgreeWithSQL() throws {
        let db = try TestDatabase.create()
        var deltas: [Int64] = [0, -1, -86_400_000_000 * 2 - 5, 999_999, 1_000_000, 1_000_001, 2_000_000, 4_000_000, 8_000_000,
                               86_400_000_000, 86_400_000_001, 172_801_000_000, 40 * 86_400_000_000 + 7]
        for k in 1...100 {
            let edge = Int64((pow(2.0, Double(k) / 4) * 1_000_000).rounded())
            deltas += [edge - 1, edge, edge + 1]
        }
        var rng = SeededGenerator(seed: 9)
        for _ in 0..<300 { deltas.append(Int64(exp(Double.random(in: 0...16, using: &rng)) * 1_000_000)) }
        let responded = Timestamp.now
        let list = deltas.filter { $0 < 3_000 * 86_400_000_000 }
        let literal = "{" + list.map(String.init).joined(separator: ",") + "}"
        let rows = try db.query("""
            SELECT d, tapwire_latency_bin($1::timestamptz, $1::timestamptz - d * interval '1 microsecond')
            FROM unnest($2::bigint[]) d
            """, [responded.iso8601(fractionDigits: 6), literal]).rows
        #expect(rows.count == list.count)
        var mismatches: [String] = []
        for row in rows {
            let d = Int64(row[0]!)!, sql = Int(row[1]!)!
            if LatencyBins.bin(forMicroseconds: d) != sql { mismatches.append("\(d) µs: SQL \(sql), Swift \(LatencyBins.bin(forMicroseconds: d))") }
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(10))")
    }
}
