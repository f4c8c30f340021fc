import Foundation
import Synchronization
import Testing
import TapwireCore
@testable import TapwireStore
import TapwireTestSupport

/// `tapwire retention` against a real PostgreSQL: old partitions go, everything a report reads
/// stays exactly as it was, and a run is safe to repeat, to overlap and to interrupt.
@Suite struct RetentionTests {
    /// Two apps, a few events every hour from 415 days ago until an hour ago, each with its
    /// dedup id received ten minutes after the event.
    func seeded() throws -> (TestDatabase, PostgresConnection) {
        let db = try TestDatabase.create()
        let connection = try db.connect()
        _ = try db.createApp("one")
        _ = try db.createApp("two")
        try connection.query("SELECT tapwire_ensure_event_partitions(current_date - 416, current_date + 1)")
        try connection.query("""
            INSERT INTO events (app_id, event_time, event_id, type, device_time, received_at, category, app_version, platform)
            SELECT a.app_id, t, gen_random_uuid(), (ARRAY['delivered', 'response', 'sent']::event_type[])[1 + n % 3], t,
                   t + interval '10 minutes', 'message', '1.0', 'iOS'
            FROM apps a, generate_series(now() - interval '415 days', now() - interval '1 hour', interval '1 hour') t,
                 generate_series(1, 2) n
            """)
        try connection.query("INSERT INTO event_ids (app_id, event_id, received_at) SELECT app_id, event_id, received_at FROM events")
        return (db, connection)
    }

    /// A digest of every table except the raw events and the dedup ids: the rollups, whatever
    /// migrations made them, manifests, apps and keys.
    func digestOfEverythingElse(_ connection: PostgresConnection) throws -> [String: String] {
        let tables = try connection.query("""
            SELECT c.relname FROM pg_class c
            WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind IN ('r', 'p') AND NOT c.relispartition
              AND c.relname NOT IN ('events', 'event_ids', 'retention_dropped_partitions')
            ORDER BY 1
            """).rows.compactMap { $0[0] }
        #expect(tables.contains("apps") && tables.contains("manifests"))
        var digests: [String: String] = [:]
        for table in tables {
            let quoted = try connection.query("SELECT quote_ident($1)", [table]).scalar!
            digests[table] = try connection.query("SELECT count(*) || ':' || coalesce(md5(string_agg(t::text, '|' ORDER BY t::text)), '') FROM \(quoted) t").scalar
        }
        return digests
    }

    /// Event counts per app, UTC day and type from `from` on.
    func counts(from: Timestamp, _ connection: PostgresConnection) throws -> [[String?]] {
        try connection.query("""
            SELECT app_id, date_trunc('day', event_time AT TIME ZONE 'UTC'), type, count(*)
            FROM events WHERE event_time >= $1::timestamptz GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
            """, [from.description]).rows
    }

    @Test func dropsOnlyWholeOldPartitionsAndKeepsEverythingReportsRead() throws {
        let (_, connection) = try seeded()
        defer { connection.close() }
        let policy = try RetentionPolicy(keepSeconds: 400 * 86_400, batchSize: 100)
        let now = PostgresValue.timestamp(microseconds: try connection.query("SELECT (extract(epoch FROM now()) * 1000000)::bigint").scalar)!
        let cutoff = policy.partitionCutoff(now: now)
        // The kept range starts at the UTC midnight before the cutoff: the partition straddling it stays whole.
        let keptFrom = Timestamp.startOfUTCDay(cutoff.microseconds / 86_400_000_000)
        let before = try digestOfEverythingElse(connection)
        let keptBefore = try counts(from: keptFrom, connection)
        let idsBefore = Int(try connection.query("SELECT count(*) FROM event_ids").scalar!)!
        let oldIds = Int(try connection.query("SELECT count(*) FROM event_ids WHERE received_at < $1::timestamptz",
                                              [policy.idCutoff(now: now).description]).scalar!)!
        let dueDays = Int(try connection.query("SELECT count(*) FROM tapwire_event_partitions() WHERE range_end <= $1::timestamptz",
                                               [cutoff.description]).scalar!)!
        #expect(dueDays >= 14)
        #expect(oldIds > 1000)

        let outcome = try RetentionStore().run(policy, dryRun: false, on: connection)
        #expect(outcome.ran)
        #expect(outcome.partitions.count == dueDays)
        #expect(outcome.partitions.allSatisfy { $0.rangeEnd <= outcome.partitionCutoff })
        #expect(outcome.eventIdsDeleted == Int64(oldIds))

        // Nothing a report reads changed; the kept days hold exactly the events they held.
        #expect(try digestOfEverythingElse(connection) == before)
        #expect(try counts(from: keptFrom, connection) == keptBefore)
        #expect(!keptBefore.isEmpty)
        // Only whole partitions went: the oldest left starts at or before the cutoff.
        let oldest = try connection.query("SELECT (extract(epoch FROM min(range_start)) * 1000000)::bigint, (extract(epoch FROM min(range_end)) * 1000000)::bigint FROM tapwire_event_partitions()").rows[0]
        #expect(PostgresValue.timestamp(microseconds: oldest[0])! == keptFrom)
        #expect(PostgresValue.timestamp(microseconds: oldest[1])! > cutoff)
        #expect(try connection.query("SELECT count(*) FROM events WHERE event_time < $1::timestamptz", [keptFrom.description]).scalar == "0")
        // Dedup ids: exactly the ones received before the id cutoff are gone.
        #expect(Int(try connection.query("SELECT count(*) FROM event_ids").scalar!)! == idsBefore - oldIds)
        #expect(try connection.query("SELECT count(*) FROM event_ids WHERE received_at < $1::timestamptz",
                                     [outcome.idCutoff.description]).scalar == "0")
        // Every kept event still has its dedup id.
        #expect(try connection.query("SELECT count(*) FROM events e WHERE NOT EXISTS (SELECT 1 FROM event_ids i WHERE i.app_id = e.app_id AND i.event_id = e.event_id)").scalar == "0")
        #expect(try connection.query("SELECT count(*) FROM retention_dropped_partitions WHERE dropped_at IS NULL").scalar == "0")
        #expect(PostgresValue.timestamp(microseconds: try connection.query("SELECT (extract(epoch FROM tapwire_retention_horizon()) * 1000000)::bigint").scalar) == outcome.partitions.last?.rangeEnd)
        // No dropped table is left behind, attached or not.
        for partition in outcome.partitions {
            #expect(try connection.query("SELECT to_regclass($1) IS NULL", [partition.name]).scalar == "t")
        }

        // A rebuild reaching back before the horizon is refused, touching nothing: it would
        // erase the rollups of the dropped days. From the horizon on it runs.
        let horizon = try #require(outcome.partitions.last?.rangeEnd)
        #expect(throws: DatabaseError.self) {
            try RollupStore().rebuild(appId: nil, from: horizon.adding(seconds: -86_400), to: horizon.adding(seconds: 86_400), on: connection)
        }
        #expect(try digestOfEverythingElse(connection) == before)
        #expect(try RollupStore().rebuild(appId: nil, from: horizon, to: horizon.adding(seconds: 86_400), on: connection).count == 1)

        // Again: nothing to do, nothing changes.
        let rebuilt = try digestOfEverythingElse(connection)
        let again = try RetentionStore().run(policy, dryRun: false, on: connection)
        #expect(again.ran && again.partitions.isEmpty && again.eventIdsDeleted == 0)
        #expect(try counts(from: keptFrom, connection) == keptBefore)
        #expect(try digestOfEverythingElse(connection) == rebuilt)
    }

    /// The credits of the conversions in dropped partitions go with them, and so do the rows of
    /// notifications no credit is left for; a notification delivered before the horizon whose
    /// conversion came after it keeps its row while that credit stays. So do the install ids of
    /// devices with no conversion left and of assignments whose window closed. The rollups stay.
    @Test func conversionCreditsGoWithTheirPartitions() throws {
        let db = try TestDatabase.create()
        let connection = try db.connect()
        defer { connection.close() }
        let app = try db.createApp("converting")
        try connection.query("SELECT tapwire_ensure_event_partitions(current_date - 416, current_date + 1)")
        let policy = try RetentionPolicy(keepSeconds: 400 * 86_400)
        let now = PostgresValue.timestamp(microseconds: try connection.query("SELECT (extract(epoch FROM now()) * 1000000)::bigint").scalar)!
        let horizon = Timestamp.startOfUTCDay(policy.partitionCutoff(now: now).microseconds / 86_400_000_000)
        func at(_ hours: Double) -> String { horizon.adding(seconds: hours * 3600).description }
        // (device, type, notification, conversion name, hours from the horizon)
        let events: [(String, String, String?, String?, Double)] = [
            ("d1", "delivered", "n-old", nil, -120), ("d1", "conversion", nil, "purchase", -119.8),
            ("d1", "delivered", "n-edge", nil, -1), ("d1", "conversion", nil, "purchase", 1),
            ("d1", "delivered", "n-new", nil, 48), ("d1", "conversion", nil, "purchase", 48.2),
            ("d2", "conversion", nil, "signup", -72),
        ]
        for (device, type, notification, name, hours) in events {
            try connection.query("""
                INSERT INTO events (app_id, event_time, event_id, type, device_time, received_at, notification_id, category, app_version, platform,
                                    device_id, conversion_name)
                VALUES ($1::bigint, $2::timestamptz, gen_random_uuid(), $3::event_type, $2::timestamptz, $2::timestamptz, $4, CASE WHEN $3 = 'delivered' THEN 'promo' ELSE '' END,
                        '1.0', 'iOS', $5, $6)
                """, [String(app.appId), at(hours), type, notification, device, name])
        }
        try connection.query("""
            INSERT INTO attribution_pending (app_id, device_ids, event_times, conversions)
            SELECT app_id, array_agg(device_id), array_agg(event_time), array_agg(true) FROM events WHERE type = 'conversion' GROUP BY app_id
            """)
        #expect(try connection.query("SELECT tapwire_attribute_pending($1::bigint)", [String(app.appId)]).scalar == "4")
        #expect(try connection.query("SELECT count(*) FROM notification_conversions").scalar == "3")
        let rollups = "SELECT t::text FROM rollup_conversion_totals t UNION ALL SELECT c::text FROM rollup_conversions c ORDER BY 1"
        let before = try connection.query(rollups).rows
        #expect(before.count > 3)

        // Holdout assignments: one whose longest possible window (90 days) closed before the
        // horizon, one whose window may still reach past it.
        for (device, days) in [("d3", -91.0), ("d1", -89.0)] {
            try connection.query("""
                INSERT INTO holdout_assignments (app_id, campaign, device_id, event_id, assigned_at, held_out, holdout_share, value)
                VALUES ($1::bigint, 'spring', $2, gen_random_uuid(), $3::timestamptz, false, 0.1, 0)
                """, [String(app.appId), device, at(days * 24)])
        }
        #expect(try connection.query("SELECT device_id FROM attribution_devices ORDER BY 1").rows == [["d1"], ["d2"]])

        let plan = try RetentionStore().run(policy, dryRun: true, on: connection)
        #expect(plan.conversionCreditsDeleted == 2 && plan.notificationConversionsDeleted == 1)
        #expect(plan.attributionDevicesDeleted == 1 && plan.holdoutAssignmentsDeleted == 1)
        #expect(try connection.query("SELECT count(*) FROM conversion_credits").scalar == "4")
        let outcome = try RetentionStore().run(policy, dryRun: false, on: connection)
        #expect(outcome.partitions.last?.rangeEnd == horizon)
        #expect(outcome.conversionCreditsDeleted == 2 && outcome.notificationConversionsDeleted == 1)
        // d2's only conversion was dropped: its install id goes; d1 converted after the horizon.
        #expect(outcome.attributionDevicesDeleted == 1 && outcome.holdoutAssignmentsDeleted == 1)
        #expect(try connection.query("SELECT device_id FROM attribution_devices ORDER BY 1").rows == [["d1"]])
        #expect(try connection.query("SELECT device_id FROM holdout_assignments ORDER BY 1").rows == [["d1"]])
        #expect(try connection.query("SELECT name, kind, notification_key FROM conversion_credits ORDER BY event_time").rows
                == [["purchase", "2", "n-edge"], ["purchase", "2", "n-new"]])
        #expect(try connection.query("SELECT notification_key FROM notification_conversions ORDER BY 1").rows == [["n-edge"], ["n-new"]])
        #expect(try connection.query(rollups).rows == before)
    }

    @Test func aDryRunChangesNothing() throws {
        let (_, connection) = try seeded()
        defer { connection.close() }
        let policy = try RetentionPolicy(keepSeconds: 400 * 86_400)
        let partitions = try connection.query("SELECT count(*) FROM tapwire_event_partitions()").scalar
        let ids = try connection.query("SELECT count(*) FROM event_ids").scalar
        let plan = try RetentionStore().run(policy, dryRun: true, on: connection)
        #expect(plan.dryRun && plan.partitions.count >= 14 && plan.eventIdsDeleted > 1000)
        #expect(try connection.query("SELECT count(*) FROM tapwire_event_partitions()").scalar == partitions)
        #expect(try connection.query("SELECT count(*) FROM event_ids").scalar == ids)
        #expect(try connection.query("SELECT count(*) FROM retention_dropped_partitions").scalar == "0")
        // What it planned is what a real run does.
        let done = try RetentionStore().run(policy, dryRun: false, on: connection)
        #expect(done.partitions.map(\.name) == plan.partitions.map(\.name))
        #expect(done.eventIdsDeleted == plan.eventIdsDeleted)
    }

    @Test func anOverlappingRunDoesNothing() throws {
        let (db, connection) = try seeded()
        defer { connection.close() }
        let other = try db.connect()
        defer { other.close() }
        // Another `tapwire retention` holds the lock (cron started the next run early).
        #expect(try other.query("SELECT pg_try_advisory_lock(7358030)").scalar == "t")
        let policy = try RetentionPolicy(keepSeconds: 400 * 86_400)
        let partitions = try connection.query("SELECT count(*) FROM tapwire_event_partitions()").scalar
        let blocked = try RetentionStore().run(policy, dryRun: false, on: connection)
        #expect(!blocked.ran && blocked.partitions.isEmpty && blocked.eventIdsDeleted == 0)
        #expect(try connection.query("SELECT count(*) FROM tapwire_event_partitions()").scalar == partitions)
        try other.query("SELECT pg_advisory_unlock(7358030)")
        let ran = try RetentionStore().run(policy, dryRun: false, on: connection)
        #expect(ran.ran && ran.partitions.count >= 14)
    }

    @Test func anInterruptedRunIsFinishedByTheNext() throws {
        let (_, connection) = try seeded()
        defer { connection.close() }
        let policy = try RetentionPolicy(keepSeconds: 400 * 86_400)
        // A run planned two partitions and died: one after detaching it, one before anything.
        let due = try connection.query("SELECT partition_name, range_start, range_end FROM tapwire_event_partitions() ORDER BY range_start LIMIT 2").rows
        for row in due {
            try connection.query(EmbeddedSQL.retentionPlanPartition, [row[0], row[1], row[2], nil])
        }
        let detached = due[0][0]!
        try connection.query("ALTER TABLE events DETACH PARTITION \(detached)")
        #expect(try connection.query("SELECT count(*) FROM tapwire_event_partitions() WHERE partition_name = $1", [detached]).scalar == "0")
        #expect(try connection.query("SELECT to_regclass($1) IS NOT NULL", [detached]).scalar == "t")

        let outcome = try RetentionStore().run(policy, dryRun: false, on: connection)
        #expect(outcome.resumed == [detached])
        #expect(try connection.query("SELECT to_regclass($1) IS NULL", [detached]).scalar == "t")
        #expect(try connection.query("SELECT count(*) FROM retention_dropped_partitions WHERE dropped_at IS NULL").scalar == "0")
        #expect(try connection.query("SELECT count(*) FROM retention_dropped_partitions").scalar == String(outcome.partitions.count + 1))
    }

    /// A run whose lock the server ends mid-run (a restart, a failover, `pg_terminate_backend`)
    /// no longer runs alone: it stops before its next step with `retention_lock_lost`, keeps
    /// what it did, and the next run finishes the rest. The run is held at its first trim (a
    /// table lock the test holds) while the lock's session is ended, so the step it stops
    /// before is known: the next trim. Deterministic: each wait polls pg_stat_activity.
    @Test func aRunWhoseLockIsLostStopsAndTheNextFinishes() throws {
        let (db, connection) = try seeded()
        defer { connection.close() }
        let policy = try RetentionPolicy(keepSeconds: 400 * 86_400)
        let hold = try db.connect()
        defer { hold.close() }
        try hold.query("BEGIN")
        try hold.query("LOCK TABLE conversion_credits IN SHARE MODE")
        let failure = Mutex<String?>(nil)
        let done = DispatchSemaphore(value: 0)
        let url = db.url
        Thread {
            defer { done.signal() }
            do {
                let runner = try PostgresConnection(url: url, applicationName: "retention-under-test")
                defer { runner.close() }
                _ = try RetentionStore().run(policy, dryRun: false, on: runner)
                failure.withLock { $0 = "no error" }
            } catch let error as RetentionError {
                failure.withLock { $0 = error.code.rawValue }
            } catch {
                failure.withLock { $0 = "\(error)" }
            }
        }.start()
        let waiting = eventually(timeout: 60) {
            (try? db.query("""
                SELECT count(*) FROM pg_stat_activity
                WHERE datname = current_database() AND application_name = 'retention-under-test' AND wait_event_type = 'Lock'
                """).scalar) == "1"
        }
        #expect(waiting, "the run never reached its first trim")
        let lockPID = try db.query("""
            SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'tapwire-lock'
            """).scalar
        #expect(lockPID != nil, "the run's lock session is not there")
        #expect(try db.query("SELECT pg_terminate_backend($1::int)", [lockPID]).scalar == "t")
        #expect(eventually(timeout: 30) {
            (try? db.query("SELECT count(*) FROM pg_stat_activity WHERE pid = $1::int", [lockPID]).scalar) == "0"
        })
        try hold.query("COMMIT")
        #expect(done.wait(timeout: .now() + 60) == .success)
        #expect(failure.withLock { $0 } == "retention_lock_lost")
        // The partitions it dropped stay dropped; the next run has nothing left half done.
        #expect(try connection.query("SELECT count(*) FROM retention_dropped_partitions WHERE dropped_at IS NULL").scalar == "0")
        let next = try RetentionStore().run(policy, dryRun: false, on: connection)
        #expect(next.ran && next.partitions.isEmpty)
        // The stopped run never reached the dedup ids' trim: the next one did all of it.
        #expect(next.eventIdsDeleted > 0)
        #expect(try RetentionStore().run(policy, dryRun: true, on: connection).eventIdsDeleted == 0)
    }

    @Test func collectorsKeepWritingWhileRetentionRuns() throws {
        let (db, connection) = try seeded()
        defer { connection.close() }
        let policy = try RetentionPolicy(keepSeconds: 400 * 86_400, batchSize: 100)
        let stop = Flag()
        let written = Tally()
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            defer { done.signal() }
            do {
                let writer = try db.connect()
                defer { writer.close() }
                while !stop.isSet {
                    try writer.query("""
                        WITH ids AS (INSERT INTO event_ids (app_id, event_id, received_at)
                                     SELECT app_id, gen_random_uuid(), now() FROM apps, generate_series(1, 10) RETURNING app_id, event_id)
                        INSERT INTO events (app_id, event_time, event_id, type, device_time, received_at, category)
                        SELECT app_id, now(), event_id, 'delivered', now(), now(), 'message' FROM ids
                        """)
                    written.add(20)
                }
            } catch {
                written.fail("\(error)")
            }
        }
        thread.start()
        let outcome = try RetentionStore().run(policy, dryRun: false, on: connection)
        stop.set()
        #expect(done.wait(timeout: .now() + 20) == .success)
        #expect(outcome.partitions.count >= 14)
        #expect(written.failures.isEmpty)
        #expect(written.total > 0)
        let today = try connection.query("SELECT count(*) FROM events WHERE received_at > now() - interval '10 minutes' AND event_time = received_at").scalar
        #expect(Int(today ?? "0") == written.total)
    }
}

final class Flag: Sendable {
    private let value = Mutex(false)
    var isSet: Bool { value.withLock { $0 } }
    func set() { value.withLock { $0 = true } }
}
