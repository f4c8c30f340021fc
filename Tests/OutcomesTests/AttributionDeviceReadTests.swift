import Foundation
import Testing
import TapwireCore
import TapwireStore
import TapwireTestSupport

/// Issue 35: attribution reads a queued device's events through `events_by_device` (migration
/// 0326's index on (app_id, hashtextextended(device_id, 0))), never by scanning the app's history,
/// and `devices forget` deletes them through it too. The read is the
/// statement of tapwire_attribute_pending (migration 0280) that fills tapwire_attribution_touch,
/// one lateral read of events per queued device; this test plans that statement, as the database
/// holds it, against an app's day of events and fails if any events partition is read otherwise.
@Suite("Attribution's per-device read")
struct AttributionDeviceReadTests {
    static let devices = 1_500, eventsPerDevice = 20

    /// The statement as installed (pg_proc, the last migration's text), its PL/pgSQL variables
    /// made parameters: `p_app` is $1, `v_horizon` $2, as PL/pgSQL passes them.
    static func touchRead(_ db: TestDatabase) throws -> (statement: String, settings: [(String, String)]) {
        let row = try db.query("SELECT prosrc, array_to_json(proconfig) FROM pg_proc WHERE oid = 'tapwire_attribute_pending(bigint, integer)'::regprocedure").rows
        let source = try #require(row.first?[0])
        let marker = "INSERT INTO tapwire_attribution_touch"
        let starts = source.ranges(of: marker)
        try #require(starts.count == 1, "one per-device read in tapwire_attribute_pending, found \(starts.count)")
        let tail = source[starts[0].lowerBound...]
        let end = try #require(tail.firstIndex(of: ";"))
        var statement = String(tail[..<end])
        statement = statement.replacing(#/\bp_app\b/#, with: "$1").replacing(#/\bv_horizon\b/#, with: "$2")
        // Any other variable of the function would be a column to the planner: the statement
        // would not be the one the function runs.
        let unbound = statement.matches(of: #/\b[pv]_[a-z_]+\b/#).map { String($0.output) }
        try #require(unbound.isEmpty, "variables left in the statement: \(unbound)")
        #expect(statement.contains("e.device_id = q.device_id"), "the read is per device:\n\(statement)")
        // The index's key (0326), and the id itself checked on the heap: two ids of one hash stay apart.
        #expect(statement.contains("hashtextextended(e.device_id, 0) = hashtextextended(q.device_id, 0)"), "the read gives the index's key:\n\(statement)")
        // The function's own settings (`SET enable_seqscan = off`, … in its definition).
        let config = try #require(row.first?[1]).data(using: .utf8)!
        let pairs = try #require(try JSONSerialization.jsonObject(with: config) as? [String])
        let settings = pairs.map { pair -> (String, String) in
            let parts = pair.split(separator: "=", maxSplits: 1)
            return (String(parts[0]), parts.count > 1 ? String(parts[1]) : "")
        }
        return (statement, settings)
    }

    /// The reads of events partitions in a plan, as (partition, how, index): each must be an index
    /// scan (or a bitmap read) of a partition of events_by_device.
    static func eventReads(_ plan: [String: Any], partitions: Set<String>) -> [(relation: String, node: String, indexes: [String], indexConditions: String, filters: String)] {
        QueryPlan.nodes(plan).compactMap { node in
            guard let relation = node["Relation Name"] as? String, partitions.contains(relation) else { return nil }
            let type = node["Node Type"] as? String ?? "?"
            let scans = type == "Bitmap Heap Scan" ? Array(QueryPlan.nodes(node).dropFirst()) : [node]
            let indexes = scans.compactMap { $0["Index Name"] as? String }
            let indexConditions = scans.compactMap { $0["Index Cond"] as? String }.joined(separator: " / ")
            return (relation, type, indexes, indexConditions, node["Filter"] as? String ?? "")
        }
    }

    /// The partitions of events and of events_by_device (none if the index is gone: then the
    /// plans of the tests fail).
    static func partitions(_ db: TestDatabase) throws -> (events: Set<String>, deviceIndexes: Set<String>) {
        let partitions = Set(try db.query("SELECT inhrelid::regclass::text FROM pg_inherits WHERE inhparent = 'events'::regclass").rows.compactMap { $0[0] })
        let deviceIndexes = Set(try db.query("""
            SELECT inhrelid::regclass::text FROM pg_inherits WHERE inhparent = to_regclass('events_by_device')
            """).rows.compactMap { $0[0] })
        return (partitions, deviceIndexes)
    }

    /// `devices forget` (tapwire_forget_device, migration 0326's text) deletes a device's events
    /// through events_by_device: the DELETE as installed, planned as the function's first call
    /// and its generic plan, reads the partition with rows by the index's key, the id checked.
    @Test func theForgetOfADeviceUsesTheDeviceIndex() throws {
        let db = try TestDatabase.create()
        let app = try db.createApp()
        let partition = try Self.seedDay(db, app: app.appId)
        let source = try #require(try db.query("""
            SELECT prosrc FROM pg_proc WHERE oid = 'tapwire_forget_device(bigint, text)'::regprocedure
            """).scalar)
        let starts = source.ranges(of: "DELETE FROM events ")
        try #require(starts.count == 1, "one DELETE of events in tapwire_forget_device, found \(starts.count)")
        let tail = source[starts[0].lowerBound...]
        let statement = String(tail[..<(try #require(tail.firstIndex(of: ";")))])
            .replacing(#/\bp_app\b/#, with: "$1").replacing(#/\bp_device\b/#, with: "$2")
        #expect(statement.contains("hashtextextended(device_id, 0) = hashtextextended($2, 0)") && statement.contains("device_id = $2"), "\(statement)")
        let (partitions, deviceIndexes) = try Self.partitions(db)
        #expect(deviceIndexes.count == partitions.count)
        let connection = try db.connect()
        defer { connection.close() }
        for cacheMode in ["force_custom_plan", "force_generic_plan"] {
            defer { _ = try? connection.query("DEALLOCATE forget_read") }
            try connection.query("SELECT set_config('plan_cache_mode', $1, false)", [cacheMode])
            try connection.query(SQL("PREPARE forget_read(bigint, text) AS \(statement)", name: "tapwire_forget_device's DELETE of events"))
            let json = try #require(try connection.query("EXPLAIN (FORMAT JSON) EXECUTE forget_read(\(app.appId), 'device-7')").scalar)
            let top = try #require(try JSONSerialization.jsonObject(with: json.data(using: .utf8)!) as? [[String: Any]])
            let plan = try #require(top.first?["Plan"] as? [String: Any])
            let reads = Self.eventReads(plan, partitions: partitions)
            let read = try #require(reads.first { $0.relation == partition }, "\(cacheMode): \(partition) not in the plan\n\(json)")
            #expect(["Index Scan", "Bitmap Heap Scan"].contains(read.node) && !read.indexes.isEmpty
                    && read.indexes.allSatisfy(deviceIndexes.contains), "\(cacheMode): \(read.relation) read by \(read.node) \(read.indexes)\n\(json)")
            #expect(read.indexConditions.contains("hashtextextended") && read.filters.contains("(device_id = "),
                    "\(cacheMode): \(read.indexConditions) / \(read.filters)")
        }
    }

    /// One UTC day of events, yesterday's, whenever the test runs (docs/testing.md), in a
    /// partition autovacuum leaves alone: its statistics are the ANALYZE below, nothing else.
    /// 1,500 devices of 20 events each (deliveries, taps, a conversion), spread over the day, and
    /// the devices that converted, as the fold records them. Returns the partition.
    static func seedDay(_ db: TestDatabase, app: Int64) throws -> String {
        let day = Timestamp.now.utcDay - 1
        let dayStart = Timestamp.startOfUTCDay(day)
        let partition = try EventsPartition.withoutAutovacuum(db, day: day)
        // 30,000 rows: ANALYZE samples 300 × default_statistics_target (100) rows, so it reads
        // every row and the statistics are the same on every run.
        let rows = Self.devices * Self.eventsPerDevice
        try db.query("""
            INSERT INTO events (app_id, event_time, event_id, type, device_time, received_at, category, app_version, platform,
                                device_id, notification_id, action_identifier, conversion_name, conversion_currency, conversion_value)
            SELECT $1::bigint, t, gen_random_uuid(), k, t, t, 'promo', '1.0', 'iOS', 'device-' || (g % $3::int),
                   CASE WHEN k <> 'conversion' THEN 'n-' || (g / 2) END,
                   CASE WHEN k = 'response' THEN 'open' END,
                   CASE WHEN k = 'conversion' THEN 'purchase' END,
                   CASE WHEN k = 'conversion' THEN 'EUR' END,
                   CASE WHEN k = 'conversion' THEN 9.99 END
            FROM generate_series(0, $4::int - 1) g,
                 LATERAL (SELECT $2::timestamptz + (g::bigint * 86399 / $4::int) * interval '1 second' AS t,
                                 (CASE (g / $3::int) % 10 WHEN 9 THEN 'conversion' WHEN 3 THEN 'response' WHEN 6 THEN 'response'
                                                         ELSE 'delivered' END)::event_type AS k) x
            """, [String(app), dayStart.description, String(Self.devices), String(rows)])
        try db.query("""
            INSERT INTO attribution_devices (app_id, device_id, first_conversion, last_conversion)
            SELECT app_id, device_id, min(event_time), max(event_time) FROM events
            WHERE app_id = $1::bigint AND type = 'conversion' GROUP BY 1, 2
            """, [String(app)])
        try db.query("ANALYZE events")
        try db.query("ANALYZE attribution_devices")
        #expect(try db.query("SELECT count(*) FROM \(partition) WHERE device_id IS NOT NULL").scalar == String(rows))
        #expect(try db.query("SELECT count(*) FROM attribution_devices").scalar == String(Self.devices))
        return partition
    }

    @Test func theReadOfEachQueuedDeviceUsesTheDeviceIndex() throws {
        let db = try TestDatabase.create()
        let app = try db.createApp()
        let partition = try Self.seedDay(db, app: app.appId)

        let (statement, settings) = try Self.touchRead(db)
        let (partitions, deviceIndexes) = try Self.partitions(db)
        #expect(partitions.contains(partition) && partitions.count >= 5)
        #expect(deviceIndexes.count == partitions.count)
        let horizon = try #require(Int(try db.query("""
            SELECT extract(epoch FROM greatest(direct_window, influence_window))::bigint FROM apps WHERE app_id = $1::bigint
            """, [String(app.appId)]).scalar ?? ""))

        let connection = try db.connect()
        defer { connection.close() }
        // The function makes its scratch tables on its first call in a session (nothing queued:
        // it reads nothing and returns 0).
        #expect(try connection.query("SELECT tapwire_attribute_pending($1::bigint)", [String(app.appId)]).scalar == "0")
        // As the function would see them: eight queued devices that converted, each from the
        // earliest to the latest queued time of its own events that day.
        let queued = (0..<8).map { "device-\($0 * 150 + 7)" }
        for settingsApplied in [true, false] {
            for cacheMode in ["force_custom_plan", "force_generic_plan"] {
                defer { _ = try? connection.query("DEALLOCATE touch_read") } // after the ROLLBACK
                try connection.query("BEGIN")
                defer { _ = try? connection.query("ROLLBACK") }
                try connection.query("""
                    INSERT INTO tapwire_attribution_span
                    SELECT device_id, min(event_time), max(event_time), min(event_time) FILTER (WHERE type = 'conversion'),
                           max(event_time) FILTER (WHERE type = 'conversion')
                    FROM events WHERE app_id = $1::bigint AND device_id = ANY ($2::text[]) GROUP BY device_id
                    """, [String(app.appId), "{" + queued.joined(separator: ",") + "}"])
                if settingsApplied {
                    for (name, value) in settings {
                        try connection.query("SELECT set_config($1, $2, true)", [name, value])
                    }
                }
                try connection.query("SELECT set_config('plan_cache_mode', $1, true)", [cacheMode])
                // Prepared afresh each time: a cached generic plan is kept across changes of the
                // settings it was planned under.
                try connection.query(SQL("PREPARE touch_read(bigint, interval) AS \(statement)", name: "tapwire_attribute_pending's per-device read"))
                let json = try #require(try connection.query("""
                    EXPLAIN (FORMAT JSON) EXECUTE touch_read(\(app.appId), make_interval(secs => \(horizon)))
                    """).scalar)
                let top = try #require(try JSONSerialization.jsonObject(with: json.data(using: .utf8)!) as? [[String: Any]])
                let plan = try #require(top.first?["Plan"] as? [String: Any])
                let reads = Self.eventReads(plan, partitions: partitions)
                let label = "\(settingsApplied ? "the function's settings" : "the planner's defaults"), \(cacheMode)"
                // Every partition may hold a device's window: each is in the plan (pruned at run time).
                #expect(Set(reads.map(\.relation)) == partitions, "\(label): partitions read \(reads.map(\.relation).sorted())")
                for read in reads where settingsApplied || read.relation == partition {
                    // Under the planner's defaults, an empty partition is cheapest read whole:
                    // only the partition with rows is held to the index there. Under the
                    // function's settings (which production runs), every partition is.
                    #expect(["Index Scan", "Index Only Scan", "Bitmap Heap Scan"].contains(read.node)
                            && !read.indexes.isEmpty && read.indexes.allSatisfy(deviceIndexes.contains),
                            "\(label): \(read.relation) read by \(read.node) \(read.indexes)\n\(json)")
                }
                #expect(!reads.contains { $0.relation == partition && $0.node == "Seq Scan" }, "\(label)\n\(json)")
                // By the index's key, the id itself checked on the heap (0326).
                #expect(reads.filter { $0.relation == partition }.allSatisfy { $0.indexConditions.contains("hashtextextended") && $0.filters.contains("(device_id = q.device_id)") },
                        "\(label): \(reads.filter { $0.relation == partition }.map { ($0.indexConditions, $0.filters) })")
            }
        }
    }
}
