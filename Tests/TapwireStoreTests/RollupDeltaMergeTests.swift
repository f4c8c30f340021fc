import Foundation
import Synchronization
import TapwireStatistics
import Testing
import TapwireCore
@testable import TapwireStore
import TapwireTestSupport
import TapwireRollupOracle

/// The group commit adds rollup rows computed in Swift (`RollupDeltas`); the tests' oracle
/// recomputes them in SQL (sql/fresh/, `RollupOracle`), and `tapwire rollups rebuild` with the
/// Swift code again. These hold the three equal, and the SQL and Swift histogram bins equal,
/// against the real PostgreSQL.
@Suite struct RollupDeltaMergeTests {
    static func randomEvent(_ rng: inout SeededGenerator, around now: Timestamp) -> Event {
        let time = now.adding(microseconds: -Int64.random(in: 0...(50 * 3_600_000_000), using: &rng))
        // Engagement's types: conversions leave these rollups alone (OutcomesTests).
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
        let range = try #require(try RollupStore().eventHours(appId: app.appId, on: connection))
        try RollupOracle.recompute(appId: app.appId, from: range.from, to: range.to, on: connection)
        let oracle = try RollupSnapshot.rows(appId: app.appId, on: connection)
        #expect(oracle.count == incremental.count)
        #expect(oracle == incremental, "rollups merged from Swift deltas differ from the SQL recomputation")
        // `rollups rebuild` streams the events through the same Swift code: it must agree too,
        // starting from rollups that are wrong.
        try connection.query("DELETE FROM rollup_total_histograms WHERE app_id = $1::bigint", [String(app.appId)])
        try connection.query("UPDATE rollup_uplift_days SET weights = weights + 1 WHERE app_id = $1::bigint", [String(app.appId)])
        try connection.query("UPDATE mismatch_usage_daily SET event_count = event_count + 5 WHERE app_id = $1::bigint", [String(app.appId)])
        let days = try RollupStore().rebuild(appId: app.appId, from: range.from, to: range.to, on: connection)
        #expect(days.reduce(0) { $0 + $1.eventsRecomputed } == distinct)
        #expect(try RollupSnapshot.rows(appId: app.appId, on: connection) == oracle, "rollups rebuild differs from the SQL recomputation")
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
            let range = try #require(try RollupStore().eventHours(appId: app.appId, on: connection))
            try RollupOracle.recompute(appId: app.appId, from: range.from, to: range.to, on: connection)
            #expect(try RollupSnapshot.rows(appId: app.appId, on: connection) == incremental, "app \(app.appId)")
        }
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

        // A fold whose upsert fails (a rollup table is locked away from it) takes nothing.
        try connection.query("SET lock_timeout = '200ms'")
        let blocker = try db.connect()
        defer { blocker.close() }
        try blocker.query("BEGIN")
        try blocker.query("LOCK TABLE rollup_total_histograms IN ACCESS EXCLUSIVE MODE")
        #expect(throws: DatabaseError.self) { try RollupStore().fold(on: connection) }
        try blocker.query("ROLLBACK")
        #expect(try db.query("SELECT count(*) FROM rollup_delta_batches").scalar == "1")

        #expect(try RollupStore().fold(on: connection) > 0)
        #expect(try db.query("SELECT count(*) FROM rollup_delta_batches").scalar == "0")
        #expect(try db.query("SELECT count(*) FROM rollup_deltas").scalar == "0")
        let folded = try RollupSnapshot.rows(appId: app.appId, on: connection)
        let range = try #require(try RollupStore().eventHours(appId: app.appId, on: connection))
        try RollupOracle.recompute(appId: app.appId, from: range.from, to: range.to, on: connection)
        #expect(try RollupSnapshot.rows(appId: app.appId, on: connection) == folded)
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
