import Foundation
import TapwireStatistics
import Testing
import TapwireCore
@testable import TapwireStore
import TapwireTestSupport

/// Assignments and the holdout aggregates kept by the fold (docs/holdouts.md, migration 0201),
/// against the real PostgreSQL: whatever order assignments and conversions arrive in, and however
/// the commits and folds interleave, the stored rows equal a recomputation from the raw events in
/// SQL written here.
@Suite struct HoldoutStoreTests {
    static let day: Int64 = 86_400_000_000

    /// Two campaigns over 80 devices: assignments (some devices assigned twice, some twice at
    /// the same instant, some in the other arm), conversions of two names with and without values
    /// before, inside and after the windows, and deliveries that must change nothing. "summer"
    /// has its own window (2 days) and counts only purchases; "spring" takes the app's (3 days).
    static func scenario(seed: UInt64, base: Timestamp) -> [StagedBatch.Event] {
        var rng = SeededGenerator(seed: seed)
        var events: [StagedBatch.Event] = []
        func at(_ days: Double) -> Timestamp { base.adding(microseconds: Int64(days * Double(day))) }
        for d in 0..<80 {
            let device = "install-\(d)"
            for campaign in ["spring", "summer"] where Double.random(in: 0..<1, using: &rng) < 0.85 {
                let share = campaign == "spring" ? 0.1 : 0.5
                let first = at(Double.random(in: 0..<2, using: &rng))
                var times = [first]
                let extra = Double.random(in: 0..<1, using: &rng)
                if extra < 0.15 { times.append(first) } // the same instant: the smaller event id wins
                else if extra < 0.35 { times.append(at(Double.random(in: 0..<2, using: &rng))) }
                for time in times {
                    let arm: HoldoutArm = Double.random(in: 0..<1, using: &rng) < share ? .heldOut : .treated
                    events.append(.init(Event(eventId: .v7(at: time, using: &rng), type: .assignment, deviceTime: time, category: "",
                                              campaign: campaign, assignment: .init(arm: arm, holdoutShare: share), deviceId: device)))
                }
            }
            for _ in 0..<Int.random(in: 0...4, using: &rng) {
                let time = at(Double.random(in: -1..<5, using: &rng))
                let valued = Bool.random(using: &rng)
                let conversion = Event.Conversion(name: Bool.random(using: &rng) ? "purchase" : "signup",
                                                  value: valued ? Double(Int.random(in: 1...9_999, using: &rng)) / 100 : nil,
                                                  currency: valued ? "EUR" : nil)
                events.append(.init(Event(eventId: .v7(at: time, using: &rng), type: .conversion, deviceTime: time, category: "",
                                          conversion: conversion, deviceId: d % 3 == 0 ? nil : device), contextDevice: device))
            }
            let time = at(Double.random(in: 0..<3, using: &rng))
            events.append(.init(Event(eventId: .v7(at: time, using: &rng), type: .delivered, deviceTime: time, category: "promo",
                                      campaign: "spring"), contextDevice: device))
        }
        return events
    }

    /// The holdout rows recomputed from the events, written independently of migration 0201.
    static let oracle = """
        WITH ordered AS (
            SELECT campaign, device_id, event_id, event_time, held_out, holdout_share,
                   row_number() OVER (PARTITION BY campaign, device_id ORDER BY event_time, event_id) AS n
            FROM events WHERE app_id = $1 AND type = 'assignment'
        ), assigned AS (
            SELECT o.*, coalesce(c.conversion_window, a.holdout_window) AS win, c.conversion_name
            FROM ordered o JOIN apps a ON a.app_id = $1
            LEFT JOIN holdout_campaigns c ON c.app_id = $1 AND c.campaign = o.campaign
            WHERE o.n = 1
        )
        SELECT s.campaign, s.device_id, s.event_id::text AS event_id, s.event_time::text AS assigned_at, s.held_out::text AS held_out,
               s.holdout_share::text AS holdout_share,
               (SELECT min(e.event_time) FROM events e
                WHERE e.app_id = $1 AND e.type = 'conversion' AND e.device_id = s.device_id AND e.event_time >= s.event_time
                  AND e.event_time < s.event_time + s.win AND coalesce(e.conversion_name = s.conversion_name, true))::text AS converted_at,
               trim_scale((SELECT coalesce(sum(e.conversion_value::numeric), 0) FROM events e
                WHERE e.app_id = $1 AND e.type = 'conversion' AND e.device_id = s.device_id AND e.event_time >= s.event_time
                  AND e.event_time < s.event_time + s.win AND coalesce(e.conversion_name = s.conversion_name, true)))::text AS value
        FROM assigned s ORDER BY 1, 2
        """
    static let stored = """
        SELECT campaign, device_id, event_id::text, assigned_at::text, held_out::text, holdout_share::text, converted_at::text, trim_scale(value)::text AS value
        FROM holdout_assignments WHERE app_id = $1 ORDER BY 1, 2
        """
    /// The daily rollup from the oracle's rows, and the stored one without rows that sum to nothing.
    static let oracleDays = """
        WITH h AS (\(oracle.replacingOccurrences(of: "ORDER BY 1, 2", with: "")))
        SELECT campaign, held_out, holdout_share, day::text, sum(assigned)::text, sum(converted)::text, trim_scale(sum(vs))::text, trim_scale(sum(vq))::text, trim_scale(sum(vc))::text
        FROM (SELECT campaign, held_out, holdout_share, date_trunc('day', assigned_at::timestamptz, 'UTC') AS day,
                     1 AS assigned, 0 AS converted, 0::numeric AS vs, 0::numeric AS vq, 0::numeric AS vc FROM h
              UNION ALL
              SELECT campaign, held_out, holdout_share, date_trunc('day', converted_at::timestamptz, 'UTC'), 0, 1,
                     value::numeric, value::numeric * value::numeric, value::numeric * value::numeric * value::numeric
              FROM h WHERE converted_at IS NOT NULL) d
        GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4
        """
    static let storedDays = """
        SELECT campaign, held_out::text, holdout_share::text, day::text, assigned::text, converted::text, trim_scale(value_sum)::text, trim_scale(value_sq)::text, trim_scale(value_cube)::text
        FROM rollup_holdouts WHERE app_id = $1 AND (assigned, converted, value_sum, value_sq, value_cube) <> (0, 0, 0, 0, 0)
        ORDER BY 1, 2, 3, 4
        """

    static func prepare(_ db: TestDatabase) throws -> CreatedApp {
        let app = try db.createApp()
        try db.query("UPDATE apps SET holdout_window = interval '3 days' WHERE app_id = $1", [String(app.appId)])
        try db.query("INSERT INTO holdout_campaigns (app_id, campaign, conversion_window, conversion_name) VALUES ($1, 'summer', interval '2 days', 'purchase')",
                     [String(app.appId)])
        return app
    }

    static func rows(_ sql: String, app: CreatedApp, on connection: PostgresConnection) throws -> [[String?]] {
        try connection.query(SQL(sql, name: "holdout test query"), [String(app.appId)]).rows
    }

    @Test func anyArrivalOrderGivesTheRowsOfARecomputation() throws {
        let db = try TestDatabase.create()
        let base = Timestamp.now.adding(microseconds: -6 * Self.day)
        let events = Self.scenario(seed: 36, base: base)
        let connection = try db.connect()
        defer { connection.close() }
        var results: [[[String?]]] = []
        for (attempt, seed) in [UInt64(1), 2, 3].enumerated() {
            let app = try Self.prepare(db)
            var rng = SeededGenerator(seed: seed)
            let writer = EventWriter(connection: try db.connect(), partitions: PartitionDays())
            defer { writer.connection.close() }
            var pending = events.shuffled(using: &rng)
            if attempt == 0 { pending = events } // in time-of-generation order once
            var sentChunks: [[StagedBatch.Event]] = []
            while !pending.isEmpty {
                let chunk = Array(pending.prefix(Int.random(in: 1...40, using: &rng)))
                pending.removeFirst(chunk.count)
                try writer.commit(StagedBatch.Event.batches(chunk, appId: app.appId))
                sentChunks.append(chunk)
                if Bool.random(using: &rng) { try RollupStore().fold(on: connection) }
            }
            try RollupStore().fold(on: connection)
            let stored = try Self.rows(Self.stored, app: app, on: connection)
            #expect(stored.count > 100, "the scenario assigns most devices in both campaigns")
            #expect(stored.filter { $0[4] == "true" }.count > 10 && stored.filter { $0[6] != nil }.count > 20
                    && stored.filter { $0[7] != "0" }.count > 10, "held-out, converted and valued devices")
            #expect(stored == (try Self.rows(Self.oracle, app: app, on: connection)), "order \(seed)")
            #expect(try Self.rows(Self.storedDays, app: app, on: connection) == (try Self.rows(Self.oracleDays, app: app, on: connection)))
            // A retried commit stores nothing and changes nothing.
            let days = try Self.rows(Self.storedDays, app: app, on: connection)
            let retried = try writer.commit(StagedBatch.Event.batches(sentChunks[sentChunks.count / 2], appId: app.appId))
            #expect(retried.allSatisfy { $0.stored == 0 })
            try RollupStore().fold(on: connection)
            #expect(try Self.rows(Self.storedDays, app: app, on: connection) == days)
            results.append(stored)
        }
        #expect(results.dropFirst().allSatisfy { $0 == results[0] }, "every order stores the same rows")
    }

    /// The scenario's checks hold something: converted devices, held-out ones, and a device
    /// assigned twice keeps the first.
    @Test func theFirstAssignmentIsKept() throws {
        let db = try TestDatabase.create()
        let app = try Self.prepare(db)
        // One UTC day holds all three events, whatever the hour the test runs at: the daily
        // rollup is checked as one row.
        let t = Timestamp.startOfUTCDay(Timestamp.now.utcDay - 2).adding(microseconds: 3_600_000_000)
        var rng = SeededGenerator(seed: 9)
        func assignment(_ arm: HoldoutArm, _ time: Timestamp) -> Event {
            Event(eventId: .v7(at: time, using: &rng), type: .assignment, deviceTime: time, category: "", campaign: "spring",
                  assignment: .init(arm: arm, holdoutShare: 0.1), deviceId: "d1")
        }
        let first = assignment(.heldOut, t), later = assignment(.treated, t.adding(microseconds: 3_600_000_000))
        let purchase = Event(eventId: .v7(at: t.adding(microseconds: 7_200_000_000), using: &rng), type: .conversion,
                             deviceTime: t.adding(microseconds: 7_200_000_000), category: "",
                             conversion: .init(name: "purchase", value: 12.5, currency: "EUR"), deviceId: "d1")
        let writer = EventWriter(connection: try db.connect(), partitions: PartitionDays())
        defer { writer.connection.close() }
        let context = DeviceContext(appVersion: "1", platform: "iOS")
        // The later assignment and the conversion first; the earlier assignment a commit after.
        try writer.commit([StagedBatch(appId: app.appId, receivedAt: .now, context: context, events: [later, purchase])])
        try RollupStore().fold(on: writer.connection)
        #expect(try db.query("SELECT held_out::text, value::text FROM holdout_assignments").rows == [["false", "12.5"]])
        try writer.commit([StagedBatch(appId: app.appId, receivedAt: .now, context: context, events: [first])])
        try RollupStore().fold(on: writer.connection)
        #expect(try db.query("SELECT held_out::text, event_id::text, value::text FROM holdout_assignments").rows
                == [["true", first.eventId.description, "12.5"]])
        #expect(try db.query("SELECT held_out::text, assigned::text, converted::text, value_sum::text FROM rollup_holdouts WHERE assigned <> 0 OR converted <> 0 ORDER BY 1").rows
                == [["true", "1", "1", "12.5"]])
        // Stored on events with its own columns; the engagement rollups and attribution's queue hold none of it.
        #expect(try db.query("SELECT held_out::text, holdout_share::text, campaign FROM events WHERE type = 'assignment' ORDER BY event_time").rows
                == [["true", "0.1", "spring"], ["false", "0.1", "spring"]])
        #expect(try db.query("SELECT count(*) FROM rollup_totals").scalar == "0")
        #expect(try db.query("SELECT count(*) FROM mismatch_usage_hourly").scalar == "0")
    }

    /// The scenario (from `seed`) and `engagementEvents` random engagement events around now,
    /// committed in one go and folded: an app with assignments, conversions and engagement.
    static func commitScenario(_ db: TestDatabase, seed: UInt64, engagementEvents: Int) throws -> (CreatedApp, EventWriter) {
        let app = try prepare(db)
        var events = scenario(seed: seed, base: Timestamp.now.adding(microseconds: -2 * day))
        var rng = SeededGenerator(seed: seed + 1)
        events += (0..<engagementEvents).map { _ in .init(RollupDeltaMergeTests.randomEvent(&rng, around: .now)) }
        let writer = EventWriter(connection: try db.connect(), partitions: PartitionDays())
        try writer.commit(StagedBatch.Event.batches(events, appId: app.appId))
        try RollupStore().fold(on: writer.connection)
        return (app, writer)
    }

    /// Engagement's rollups with assignments and conversions among the events: the incremental
    /// rows equal the SQL oracle's (which leaves both out, as RollupDeltas does).
    @Test func engagementRollupsAndTheOracleIgnoreAssignments() throws {
        let db = try TestDatabase.create()
        let (app, writer) = try Self.commitScenario(db, seed: 5, engagementEvents: 200)
        defer { writer.connection.close() }
        let incremental = try RollupSnapshot.rows(appId: app.appId, on: writer.connection)
        #expect(!incremental.isEmpty)
        #expect(try RollupSnapshot.recomputedByOracle(appId: app.appId, on: writer.connection) == incremental)
    }

    /// The fold's scratch table keeps its file from fold to fold of one session (migration 0306:
    /// no TRUNCATE when it is empty, so no new relfilenode and no replanning), and a fold of two
    /// apps in one transaction, whose second call finds the first's rows, still stores what a
    /// recomputation gives for both.
    @Test func theScratchTableKeepsItsFileFromFoldToFold() throws {
        let db = try TestDatabase.create()
        let apps = try (0..<4).map { _ in try Self.prepare(db) }
        let writer = EventWriter(connection: try db.connect(), partitions: PartitionDays())
        defer { writer.connection.close() }
        let connection = try db.connect()
        defer { connection.close() }
        func commit(_ app: CreatedApp, seed: UInt64) throws {
            let events = Self.scenario(seed: seed, base: Timestamp.now.adding(microseconds: -2 * Self.day))
            try writer.commit(StagedBatch.Event.batches(events, appId: app.appId))
        }
        func file() throws -> String? {
            try connection.query("""
                SELECT relfilenode::text FROM pg_class WHERE relnamespace = pg_my_temp_schema() AND relname = 'tapwire_holdout_change'
                """).scalar
        }
        try commit(apps[0], seed: 11)
        try RollupStore().fold(on: connection)
        let made = try #require(try file(), "the first fold made the scratch table")
        try commit(apps[1], seed: 12)
        try RollupStore().fold(on: connection)
        #expect(try file() == made, "the scratch table keeps its relfilenode from fold to fold")
        // Two apps in one fold: the same install ids, so rows the first call left would be read
        // as the second app's stored rows.
        try commit(apps[2], seed: 13)
        try commit(apps[3], seed: 14)
        try RollupStore().fold(on: connection)
        for app in apps {
            let stored = try Self.rows(Self.stored, app: app, on: connection)
            #expect(stored.count > 100, "app \(app.appId)")
            #expect(stored == (try Self.rows(Self.oracle, app: app, on: connection)), "app \(app.appId)")
            #expect(try Self.rows(Self.storedDays, app: app, on: connection) == (try Self.rows(Self.oracleDays, app: app, on: connection)),
                    "app \(app.appId)")
        }
    }

    /// A fold of devices with conversions alone and no holdout row reads nothing of `events`
    /// (migration 0323: the queue says which entries are assignments); once one of them is
    /// assigned, its fold reads it and counts the conversion posted before the assignment, and an
    /// older collector's queue row (no flags: NULL) is still read. The scans of `events`' partitions
    /// are this session's own, flushed before each count.
    @Test func conversionsAloneOfDevicesNeverAssignedAreNotRead() throws {
        let db = try TestDatabase.create()
        let app = try Self.prepare(db)
        let writer = EventWriter(connection: try db.connect(), partitions: PartitionDays())
        defer { writer.connection.close() }
        let connection = writer.connection
        let t = Timestamp.startOfUTCDay(Timestamp.now.utcDay - 2).adding(microseconds: 3_600_000_000)
        var rng = SeededGenerator(seed: 23)
        func conversion(_ device: String, at time: Timestamp) -> StagedBatch.Event {
            .init(Event(eventId: .v7(at: time, using: &rng), type: .conversion, deviceTime: time, category: "",
                        conversion: .init(name: "purchase", value: 4, currency: "EUR"), deviceId: device))
        }
        func assignment(_ device: String, at time: Timestamp) -> StagedBatch.Event {
            .init(Event(eventId: .v7(at: time, using: &rng), type: .assignment, deviceTime: time, category: "", campaign: "spring",
                        assignment: .init(arm: .treated, holdoutShare: 0.1), deviceId: device))
        }
        /// Sequential and index scans of `events`' partitions so far.
        func eventScans() throws -> Int {
            try connection.query("SELECT pg_stat_force_next_flush()")
            return Int(try connection.query("""
                SELECT sum(seq_scan + coalesce(idx_scan, 0)) FROM pg_stat_user_tables
                WHERE relid IN (SELECT inhrelid FROM pg_inherits WHERE inhparent = 'events'::regclass)
                """).scalar ?? "") ?? -1
        }
        func fold() throws -> String? {
            try connection.query("SELECT tapwire_holdouts_pending($1)", [String(app.appId)]).scalar
        }
        let devices = (0..<30).map { "convert-\($0)" }
        try writer.commit(StagedBatch.Event.batches(devices.flatMap { d in
            [conversion(d, at: t.adding(microseconds: 600_000_000)), conversion(d, at: t.adding(microseconds: 1_200_000_000))]
        }, appId: app.appId))
        let before = try eventScans()
        #expect(before >= 0)
        #expect(try fold() == "0")
        #expect(try eventScans() == before, "conversions alone of devices never assigned read events")
        #expect(try db.query("SELECT count(*) FROM holdout_pending").scalar == "0", "the fold took the queue")

        // One of them assigned after its conversions: read, and its first conversion counted.
        try writer.commit(StagedBatch.Event.batches([assignment(devices[0], at: t)], appId: app.appId))
        #expect(try fold() == "1")
        #expect(try eventScans() > before, "the assigned device's events were read")
        #expect(try db.query("SELECT device_id, (extract(epoch FROM converted_at) * 1000000)::bigint::text, value::text FROM holdout_assignments").rows
                == [[devices[0], String(t.adding(microseconds: 600_000_000).microseconds), "8"]])

        // An older collector's queue row says nothing of assignments: read as before.
        try writer.commit(StagedBatch.Event.batches([assignment(devices[1], at: t)], appId: app.appId))
        try db.query("UPDATE holdout_pending SET assignments = NULL")
        #expect(try fold() == "1")
        #expect(try db.query("SELECT count(*) FROM holdout_assignments").scalar == "2")
    }

    /// `tapwire rollups rebuild` streams only the events engagement's rollups count: no
    /// assignment and no conversion reaches RollupDeltas (which would skip them one by one). Every
    /// rollup it rebuilds, engagement's and the holdouts' (queued again by
    /// rollups_rebuild_holdouts.sql), equals what the collector's commits and folds had made.
    @Test func theRebuildStreamsNoAssignmentAndKeepsEveryRollup() throws {
        let db = try TestDatabase.create()
        let (app, writer) = try Self.commitScenario(db, seed: 7, engagementEvents: 300)
        defer { writer.connection.close() }
        let connection = writer.connection
        let engagement = try RollupSnapshot.rows(appId: app.appId, on: connection)
        let holdouts = try Self.rows(Self.stored, app: app, on: connection), holdoutDays = try Self.rows(Self.storedDays, app: app, on: connection)
        #expect(!engagement.isEmpty && holdouts.count > 100 && holdoutDays.count > 4)
        func count(_ types: String) throws -> Int {
            Int(try Self.rows("SELECT count(*) FROM events WHERE app_id = $1 AND type::text IN (\(types))", app: app, on: connection)[0][0] ?? "") ?? -1
        }
        let assignments = try count("'assignment'"), conversions = try count("'conversion'")
        let engagementEvents = try count("'delivered', 'response', 'sent'")
        #expect(assignments > 100 && conversions > 20 && engagementEvents > 200)

        let range = try #require(try RollupStore().eventHours(appId: app.appId, on: connection))
        let days = try RollupStore().rebuild(appId: app.appId, from: range.from, to: range.to, on: connection)
        #expect(days.reduce(0) { $0 + $1.eventsRecomputed } == engagementEvents,
                "the rebuild streamed \(days.reduce(0) { $0 + $1.eventsRecomputed }) events: \(engagementEvents) engagement events, \(assignments) assignments, \(conversions) conversions")
        #expect(try RollupSnapshot.rows(appId: app.appId, on: connection) == engagement, "engagement's rollups after the rebuild")
        #expect(try Self.rows(Self.stored, app: app, on: connection) == holdouts, "holdout_assignments after the rebuild")
        #expect(try Self.rows(Self.storedDays, app: app, on: connection) == holdoutDays, "rollup_holdouts after the rebuild")
    }
}

extension StagedBatch {
    /// A test's event with the install id its batch context carries (nil: none).
    struct Event {
        var event: TapwireCore.Event
        var contextDevice: String?
        init(_ event: TapwireCore.Event, contextDevice: String? = nil) {
            self.event = event
            self.contextDevice = contextDevice
        }

        /// One batch per run of events with the same context install id, in order.
        static func batches(_ events: [Event], appId: Int64) -> [StagedBatch] {
            var batches: [StagedBatch] = []
            for e in events {
                if let last = batches.last, last.context.deviceId == e.contextDevice {
                    batches[batches.count - 1].events.append(e.event)
                } else {
                    batches.append(StagedBatch(appId: appId, receivedAt: .now,
                                               context: DeviceContext(appVersion: "1", platform: "iOS", deviceId: e.contextDevice),
                                               events: [e.event]))
                }
            }
            return batches
        }
    }
}
