import Foundation
import TapwireStatistics
import Testing
import TapwireCore
@testable import TapwireStore
import TapwireTestSupport

/// Migration 0070: `events` is found by time through a BRIN index only, and group commits write
/// each app's rows together, which is what lets that index skip other apps' pages.
@Suite struct EventsTimeIndexTests {
    /// Time is found through the BRIN index only; the one btree is 0161's, over a device's
    /// events (attribution and `devices forget`), partial to the events that carry an install id.
    @Test func everyPartitionHasTheBrinIndexAndTheDeviceIndexOnly() throws {
        let db = try TestDatabase.create()
        // One partition made by the migrations, one made on demand afterwards.
        try db.query("SELECT tapwire_ensure_event_partitions(current_date - 45, current_date - 45)")
        let rows = try db.query("""
            SELECT p.partition_name, count(am.amname), string_agg(am.amname, ',' ORDER BY am.amname)
            FROM tapwire_event_partitions() p
            LEFT JOIN pg_index i ON i.indrelid = to_regclass(p.partition_name)
            LEFT JOIN pg_class c ON c.oid = i.indexrelid
            LEFT JOIN pg_am am ON am.oid = c.relam
            GROUP BY 1 ORDER BY 1
            """).rows
        #expect(rows.count >= 5)
        for row in rows {
            #expect(row[1] == "2" && row[2] == "brin,btree", "partition \(row[0] ?? "?"): indexes \(row[2] ?? "none")")
        }
        let parent = try db.query("""
            SELECT am.amname, pg_get_indexdef(i.indexrelid) FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
            JOIN pg_am am ON am.oid = c.relam WHERE i.indrelid = 'events'::regclass ORDER BY am.amname
            """).rows
        #expect(parent.count == 2)
        #expect(parent.first?[1]?.contains("USING brin (app_id int8_minmax_multi_ops, event_time timestamptz_minmax_multi_ops)") == true)
        // Keyed by a hash of the install id alone (migrations 0270, 0326): a device's entries are
        // one posting list, under a key of 8 bytes instead of the id's text.
        #expect(parent.last?[1]?.contains("USING btree (app_id, hashtextextended(device_id, (0)::bigint)) WITH (deduplicate_items='on') WHERE (device_id IS NOT NULL)") == true,
                "\(parent.last?[1] ?? "none")")
    }

    /// A partition another session holds (VACUUM, a retention detach, another collector's call)
    /// is skipped within the function's lock timeout, and summarised by the next call.
    @Test func aLockedPartitionIsSkippedAndCaughtUpLater() throws {
        let db = try TestDatabase.create()
        let app = try db.createApp()
        // Within today's partition (one hour after midnight), whenever the test runs.
        let today = Timestamp.now.utcDay
        let partition = try EventsPartition.withoutAutovacuum(db, day: today)
        try db.query("""
            INSERT INTO events (app_id, event_time, event_id, type, device_time, received_at, category, app_version, platform)
            SELECT $1::bigint, $2::timestamptz - g * interval '1 ms', gen_random_uuid(), 'delivered', now(), now(), 'message', '1.0', 'iOS'
            FROM generate_series(1, 5000) g
            """, [String(app.appId), Timestamp.startOfUTCDay(today).adding(seconds: 3600).description])
        let holder = try db.connect()
        defer { holder.close() }
        try holder.query("BEGIN")
        try holder.query("LOCK TABLE \(partition) IN SHARE UPDATE EXCLUSIVE MODE")
        let started = Date()
        #expect(try db.query("SELECT tapwire_summarize_recent_event_ranges()").scalar == "0")
        #expect(Date().timeIntervalSince(started) < 5)
        try holder.query("ROLLBACK")
        #expect(Int(try db.query("SELECT tapwire_summarize_recent_event_ranges()").scalar ?? "") ?? 0 >= 2)
    }

    /// Four apps' batches interleaved in each commit, event times shuffled within one hour: one
    /// app's hour is counted exactly, and reading it skips the page ranges that hold only other
    /// apps' rows. Each app's run of a commit is about 29 pages and a range 32, so about half the
    /// ranges hold a run of the app read; with the rows interleaved every range would.
    @Test func oneAppsHourReadsMostlyItsOwnPages() throws {
        let db = try TestDatabase.create()
        let apps = try (0..<4).map { _ in try db.createApp().appId }
        let writer = EventWriter(connection: try db.connect(), partitions: PartitionDays())
        defer { writer.connection.close() }
        let hourStart = Timestamp.startOfUTCDay(Timestamp.now.utcDay - 1).adding(seconds: 10 * 3600)
        let partition = try EventsPartition.withoutAutovacuum(db, day: hourStart.utcDay)
        var random = SeededGenerator(seed: 7)
        let context = DeviceContext(appVersion: "1.0", platform: "iOS")
        for _ in 0..<5 {
            var batches: [StagedBatch] = []
            for _ in 0..<4 {
                for appId in apps {
                    let events = (0..<500).map { _ in
                        let time = hourStart.adding(seconds: Double(random.next() % 3600))
                        return Event(eventId: .v7(at: time), type: .delivered, deviceTime: time, category: "message")
                    }
                    batches.append(StagedBatch(appId: appId, receivedAt: .now, context: context, events: events))
                }
            }
            #expect(try writer.commit(batches).allSatisfy { $0.stored == 500 })
        }
        // Nothing is summarised until the fold loop's call: every range would match a read.
        let summarized = Int(try db.query("SELECT tapwire_summarize_recent_event_ranges()").scalar ?? "") ?? 0
        #expect(try db.query("SELECT tapwire_summarize_recent_event_ranges()").scalar == "0", "a second call finds nothing new")
        try db.query("ANALYZE \(partition)")
        let pages = Int(try db.query("SELECT relpages FROM pg_class WHERE oid = to_regclass($1)", [partition]).scalar ?? "") ?? 0
        #expect(pages > 100)
        // Every whole range of the partition (32 pages each); the last, partly filled one stays
        // unsummarised and is read every time.
        #expect(summarized == pages / 32)

        let plan = try db.query("""
            EXPLAIN (ANALYZE, TIMING OFF, COSTS OFF) SELECT count(*) FROM events
            WHERE app_id = $1::bigint AND event_time >= $2::timestamptz AND event_time < $3::timestamptz
            """, [String(apps[2]), hourStart.description, hourStart.adding(seconds: 3600).description]).rows.compactMap { $0[0] }
        let text = plan.joined(separator: "\n")
        #expect(text.contains("Bitmap Index Scan"), "\(text)")
        let lossy = plan.compactMap { line -> Int? in
            guard let range = line.range(of: "lossy=") else { return nil }
            return Int(line[range.upperBound...].prefix { $0.isNumber })
        }.first ?? pages
        #expect(lossy * 4 < pages * 3, "read \(lossy) of \(pages) pages:\n\(text)")
        let count = try db.query("""
            SELECT count(*) FROM events WHERE app_id = $1::bigint AND event_time >= $2::timestamptz AND event_time < $3::timestamptz
            """, [String(apps[2]), hourStart.description, hourStart.adding(seconds: 3600).description]).scalar
        #expect(count == "10000")
    }

    /// A report's edge minutes (ReportEdgeEvents.finest) are read through the BRIN index even on
    /// a partition never analysed, where the planner, without correlation statistics, prices the
    /// index as reading every page and scans the whole day instead: in a collector ingesting
    /// 12,000-19,000 events a second that was 27,000-32,000 buffers a report
    /// (sql/queries/report_edge_index_scans.sql). The transaction's later reads plan as before.
    @Test func aReportsEdgeReadsTheIndexOnAPartitionNeverAnalysed() throws {
        let db = try TestDatabase.create()
        let app = try db.createApp()
        let hourStart = Timestamp.startOfUTCDay(Timestamp.now.utcDay - 1).adding(seconds: 10 * 3600)
        let partition = try EventsPartition.withoutAutovacuum(db, day: hourStart.utcDay)
        // In arrival order, a minute's events a few pages: 20,000 over the hour.
        try db.query("""
            INSERT INTO events (app_id, event_time, event_id, type, device_time, received_at, category, app_version, platform)
            SELECT $1::bigint, $2::timestamptz + g * interval '180 ms', gen_random_uuid(), 'delivered', now(), now(), 'message', '1.0', 'iOS'
            FROM generate_series(0, 19999) g
            """, [String(app.appId), hourStart.description])
        #expect(Int(try db.query("SELECT tapwire_summarize_recent_event_ranges()").scalar ?? "") ?? 0 >= 3)
        #expect(try db.query("SELECT count(*) FROM pg_stats WHERE tablename = $1", [partition]).scalar == "0", "analysed")
        let lo = hourStart.adding(seconds: 20 * 60), hi = hourStart.adding(seconds: 27 * 60)
        let connection = try db.connect()
        defer { connection.close() }
        let (delivered, sequential, brin, after) = try connection.readOnlySnapshot { () throws(DatabaseError) in
            let rows = try ReportEdgeEvents.finest(appId: app.appId, ranges: [(lo.microseconds, hi.microseconds)], on: connection)
            let scans = try connection.query("""
                SELECT pg_stat_get_xact_numscans(to_regclass($1)),
                       (SELECT sum(pg_stat_get_xact_numscans(i.indexrelid)) FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
                        JOIN pg_am am ON am.oid = c.relam WHERE i.indrelid = to_regclass($1) AND am.amname = 'brin'),
                       current_setting('enable_seqscan')
                """, [partition]).rows.first
            return (rows.counts.values.reduce(0) { $0 + $1.delivered }, scans?[0], scans?[1], scans?[2])
        }
        #expect(delivered == 7 * 60 * 1000 / 180, "the edge's events counted once each")
        #expect(sequential == "0", "the edge scanned the day's partition")
        #expect(Int(brin ?? "") ?? 0 >= 1, "the edge did not read the BRIN index")
        #expect(after == "on", "enable_seqscan stays off after the edge")
    }
}
