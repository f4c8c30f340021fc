import Foundation
import Testing
import TapwireCore
import TapwireStore
import TapwireTestSupport

/// Issue 35: attribution reads a queued device's events through `events_by_device` (migration
/// 0270's index on (app_id, device_id)), never by scanning the app's history. The read is the
/// statement of tapwire_attribute_pending (migration 0280) that fills tapwire_attribution_touch,
/// one lateral read of events per queued device; this test plans that statement, as the database
/// holds it, against an app's day of events and fails if any events partition is read otherwise.
@Suite("Attribution's per-device read")
struct AttributionDeviceReadTests {
    static let devices = 1_500, eventsPerDevice = 20

    /// The statement as installed (pg_proc, the last migration's text), its PL/pgSQL variables
    /// made parameters: `p_app` is $1, `v_horizon` $2, as PL/pgSQL passes them.
    static func touchRead(_ db: TestDatabase) throws -> (statement: String, settings: [(String, String)]) {
        let row = try db.query("SELECT prosrc, array_to_json(proconfig) FROM pg_proc WHERE oid = 'tapwire_attribute_pending(bigint)'::regprocedure").rows
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
    static func eventReads(_ plan: [String: Any], partitions: Set<String>) -> [(relation: String, node: String, indexes: [String])] {
        QueryPlan.nodes(plan).compactMap { node in
            guard let relation = node["Relation Name"] as? String, partitions.contains(relation) else { return nil }
            let type = node["Node Type"] as? String ?? "?"
            let indexes = type == "Bitmap Heap Scan"
                ? QueryPlan.nodes(node).dropFirst().compactMap { $0["Index Name"] as? String }
                : [node["Index Name"] as? String].compactMap { $0 }
            return (relation, type, indexes)
        }
    }

    @Test func theReadOfEachQueuedDeviceUsesTheDeviceIndex() throws {
        let db = try TestDatabase.create()
        let app = try db.createApp()
        // One UTC day of events, yesterday's, whenever the test runs (docs/testing.md), in a
        // partition autovacuum leaves alone: its statistics are the ANALYZE below, nothing else.
        let day = Timestamp.now.utcDay - 1
        let dayStart = Timestamp.startOfUTCDay(day)
        let partition = try EventsPartition.withoutAutovacuum(db, day: day)
        // 1,500 devices of 20 events each (deliveries, taps, a conversion), spread over the day.
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
            """, [String(app.appId), dayStart.description, String(Self.devices), String(rows)])
        // The devices that converted, as the fold records them.
        try db.query("""
            INSERT INTO attribution_devices (app_id, device_id, first_conversion, last_conversion)
            SELECT app_id, device_id, min(event_time), max(event_time) FROM events
            WHERE app_id = $1::bigint AND type = 'conversion' GROUP BY 1, 2
            """, [String(app.appId)])
        try db.query("ANALYZE events")
        try db.query("ANALYZE attribution_devices")
        #expect(try db.query("SELECT count(*) FROM \(partition) WHERE device_id IS NOT NULL").scalar == String(rows))
        #expect(try db.query("SELECT count(*) FROM attribution_devices").scalar == String(Self.devices))

        let (statement, settings) = try Self.touchRead(db)
        let partitions = Set(try db.query("SELECT inhrelid::regclass::text FROM pg_inherits WHERE inhparent = 'events'::regclass").rows.compactMap { $0[0] })
        let deviceIndexes = Set(try db.query("""
            SELECT inhrelid::regclass::text FROM pg_inherits WHERE inhparent = to_regclass('events_by_device')
            """).rows.compactMap { $0[0] }) // none if the index is gone: then the plans below fail
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
            }
        }
    }
}
