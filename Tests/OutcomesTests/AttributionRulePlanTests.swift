import Foundation
import Testing
import TapwireCore
import TapwireStore
import TapwireTestSupport

/// Issue 35: attribution's rule (tapwire_attribute_pending, migration 0302) sorts a fold's rows
/// once, and finds each conversion's latest tap and delivery by a hash join on the running
/// counts, whatever the statistics of its scratch tables say. 0190's rule sorted every row three
/// times (first_value over two more windows); without its SET LOCALs the planner merged the
/// deliveries on the device alone and filtered on the counts (1.2 million rows for 4,000
/// conversions). This test plans the statement as the database holds it, on dense devices, with
/// and without ANALYZE of the scratch tables, and fails on a second window or a join that is not
/// a hash join. Migration 0325: the one pass sorts narrow rows, the credited tap's or delivery's
/// attributes read back for the conversions alone; the test fails if the window's input carries
/// them (0302 sorted every row whole: docs/outcomes.md, "The rule on narrow rows").
@Suite("Attribution's rule plan")
struct AttributionRulePlanTests {
    /// The rule as installed, its PL/pgSQL variables made parameters (`v_direct` $1,
    /// `v_influence` $2), and the SET LOCALs the function runs right before it.
    static func rule(_ db: TestDatabase) throws -> (statement: String, settings: [(String, String)]) {
        let source = try #require(try db.query("SELECT prosrc FROM pg_proc WHERE oid = 'tapwire_attribute_pending(bigint, integer)'::regprocedure").rows.first?[0])
        let marker = "INSERT INTO tapwire_credit_change\n    WITH "
        let starts = source.ranges(of: marker)
        try #require(starts.count == 1, "one rule in tapwire_attribute_pending, found \(starts.count)")
        let tail = source[starts[0].lowerBound...]
        let end = try #require(tail.firstIndex(of: ";"))
        var statement = String(tail[..<end])
        #expect(statement.hasSuffix("FROM credited"), "the rule ends with its credits:\n\(statement)")
        statement = statement.replacing(#/\bv_direct\b/#, with: "$1").replacing(#/\bv_influence\b/#, with: "$2")
        let unbound = statement.matches(of: #/\b[pv]_[a-z_]+\b/#).map { String($0.output) }
        try #require(unbound.isEmpty, "variables left in the statement: \(unbound)")
        // The settings the function sets for this statement alone, on the lines right before it.
        let before = source[..<starts[0].lowerBound].split(separator: "\n").filter { !$0.allSatisfy(\.isWhitespace) }.suffix(2)
        let settings = try before.map { line -> (String, String) in
            let match = try #require(line.firstMatch(of: #/^\s*SET LOCAL (\w+) = (\w+);$/#), "not a SET LOCAL: \(line)")
            return (String(match.output.1), String(match.output.2))
        }
        return (statement, settings)
    }

    /// Eight devices of 60 events of app `app` over yesterday's first hours: deliveries, taps, a
    /// conversion in ten (48 conversions).
    static func writeConvertingDevices(_ db: TestDatabase, app: Int64) throws {
        let day = Timestamp.now.utcDay - 1
        _ = try EventsPartition.withoutAutovacuum(db, day: day)
        try db.query("""
            INSERT INTO events (app_id, event_time, event_id, type, device_time, received_at, category, app_version, platform,
                                device_id, notification_id, action_identifier, conversion_name, conversion_currency, conversion_value)
            SELECT $1::bigint, t, gen_random_uuid(), k, t, t, 'promo', '1.0', 'iOS', 'device-' || (g % 8),
                   CASE WHEN k <> 'conversion' THEN 'n-' || (g / 3) END,
                   CASE WHEN k = 'response' THEN 'open' END,
                   CASE WHEN k = 'conversion' THEN 'purchase' END,
                   CASE WHEN k = 'conversion' THEN 'EUR' END,
                   CASE WHEN k = 'conversion' THEN 9.99 END
            FROM generate_series(0, 479) g,
                 LATERAL (SELECT $2::timestamptz + g * interval '30 seconds' AS t,
                                 (CASE (g / 8) % 10 WHEN 9 THEN 'conversion' WHEN 3 THEN 'response' ELSE 'delivered' END)::event_type AS k) x
            """, [String(app), Timestamp.startOfUTCDay(day).description])
    }

    /// Queues every event of app `app` for attribution, as a commit would.
    static func queueEvents(_ db: TestDatabase, app: Int64) throws {
        try db.query("""
            INSERT INTO attribution_pending (app_id, device_ids, event_times, conversions)
            SELECT $1::bigint, array_agg(device_id ORDER BY event_time), array_agg(event_time ORDER BY event_time),
                   array_agg(type = 'conversion' ORDER BY event_time)
            FROM events WHERE app_id = $1::bigint
            """, [String(app)])
    }

    @Test func theRuleSortsTheFoldsRowsOnceAndJoinsTheirCountsByHash() throws {
        let db = try TestDatabase.create()
        let app = try db.createApp()
        let (statement, local) = try Self.rule(db)
        #expect(Set(local.map(\.0)) == ["enable_nestloop", "enable_mergejoin"] && local.allSatisfy { $0.1 == "off" }, "\(local)")
        let (_, functionSettings) = try AttributionDeviceReadTests.touchRead(db)

        let connection = try db.connect()
        defer { connection.close() }
        // The function makes its scratch tables on its first call in a session (nothing queued).
        #expect(try connection.query("SELECT tapwire_attribute_pending($1::bigint)", [String(app.appId)]).scalar == "0")
        for analyzed in [true, false] {
            defer { _ = try? connection.query("DEALLOCATE rule") } // after the ROLLBACK
            try connection.query("BEGIN")
            defer { _ = try? connection.query("ROLLBACK") }
            // 40 dense devices: whole-minute times over two days (ties), taps, dismissals and
            // deliveries, 4,000 conversions, some naming a notification.
            try connection.query("""
                INSERT INTO tapwire_attribution_touch
                SELECT 'd' || (g % 40), gen_random_uuid(), timestamptz '2026-12-01' + ((g * 7919) % 2880) * interval '1 minute', k,
                       k = 'response' AND a <> 'com.apple.UNNotificationDismissActionIdentifier', 'n' || (g % 300), 'n' || (g % 300),
                       'cat' || (g % 5), g % 3 = 0, 'camp' || (g % 4), 'iOS', CASE WHEN k = 'response' THEN a END, NULL, NULL, false
                FROM generate_series(1, 20000) g,
                     LATERAL (SELECT (ARRAY['delivered', 'response', 'delivered'])[1 + g % 3]::event_type AS k,
                                     (ARRAY['open', 'buy', 'com.apple.UNNotificationDismissActionIdentifier'])[1 + (g / 3) % 3] AS a) x
                """)
            try connection.query("""
                INSERT INTO tapwire_attribution_conversion
                SELECT gen_random_uuid(), timestamptz '2026-12-01' + ((g * 104729) % 2880) * interval '1 minute', 'd' || (g % 40),
                       CASE WHEN g % 3 = 0 THEN 'n' || (g % 300) END, 'purchase', 'EUR', g
                FROM generate_series(1, 4000) g
                """)
            if analyzed { try connection.query("ANALYZE tapwire_attribution_touch, tapwire_attribution_conversion") }
            for (name, value) in functionSettings + local {
                try connection.query("SELECT set_config($1, $2, true)", [name, value])
            }
            try connection.query(SQL("PREPARE rule(interval, interval) AS \(statement)", name: "tapwire_attribute_pending's rule"))
            let json = try #require(try connection.query("EXPLAIN (VERBOSE, FORMAT JSON) EXECUTE rule(interval '30 minutes', interval '24 hours')").scalar)
            let top = try #require(try JSONSerialization.jsonObject(with: json.data(using: .utf8)!) as? [[String: Any]])
            let plan = try #require(top.first?["Plan"] as? [String: Any])
            let types = QueryPlan.nodes(plan).compactMap { $0["Node Type"] as? String }
            let label = analyzed ? "after ANALYZE" : "without statistics"
            #expect(types.filter { $0 == "WindowAgg" }.count == 1, "\(label): one pass over the rows in time order\n\(json)")
            #expect(!types.contains("Merge Join") && !types.contains("Nested Loop"), "\(label): \(types)\n\(json)")
            #expect(types.contains("Hash Join"), "\(label): \(types)")
            // What the window sorts: no attribute of a tap or a delivery (0325).
            let windows = QueryPlan.nodes(plan).filter { $0["Node Type"] as? String == "WindowAgg" }
            let sorted = windows.flatMap(QueryPlan.nodes).flatMap { ($0["Output"] as? [String]) ?? [] }
            let attributes = ["category", "has_media", "campaign", "platform", "notification_key", "action_identifier"]
            let carried = sorted.filter { output in attributes.contains { output.contains(".\($0)") } }
            #expect(!sorted.isEmpty && carried.isEmpty, "\(label): the window's rows carry \(carried)\n\(json)")
        }
    }

    /// Migration 0304: the fold no longer ANALYZEs the two scratch tables only the rule reads
    /// (statistics of every column on every call, a quarter of a fold's time in the outcomes
    /// shape: docs/benchmarks.md, "The fold's unseen quarter"); the plan above holds without
    /// them. Migration 0307: nor the credits' and the notifications' changes, whose statements
    /// now find stored rows by key and delete them by tuple id, so no plan depends on a scratch
    /// table's statistics, and none is thrown away by an ANALYZE's catalog update. No scratch
    /// table has statistics after a fold, or was ever analyzed (reltuples -1).
    @Test func theFoldsScratchTablesAreNotAnalyzed() throws {
        let db = try TestDatabase.create()
        let app = try db.createApp()
        try Self.writeConvertingDevices(db, app: app.appId)
        try Self.queueEvents(db, app: app.appId)

        let connection = try db.connect()
        defer { connection.close() }
        try connection.query("BEGIN")
        defer { _ = try? connection.query("ROLLBACK") }
        let changed = try #require(Int(try connection.query("SELECT tapwire_attribute_pending($1::bigint)", [String(app.appId)]).scalar ?? ""))
        #expect(changed == 48, "every conversion credited once")
        func analyzedColumns(_ table: String) throws -> Int {
            Int(try connection.query("""
                SELECT count(*) FROM pg_stats WHERE schemaname = pg_my_temp_schema()::regnamespace::text AND tablename = $1
                """, [table]).scalar ?? "") ?? -1
        }
        let tables = ["tapwire_attribution_queue", "tapwire_attribution_span", "tapwire_attribution_conversion",
                      "tapwire_attribution_touch", "tapwire_credit_change", "tapwire_notification_change"]
        let rows = try connection.query("""
            SELECT relname::text, reltuples::text FROM pg_class
            WHERE relnamespace = pg_my_temp_schema() AND relname = ANY ($1::text[])
            """, ["{" + tables.joined(separator: ",") + "}"]).rows
        #expect(rows.count == tables.count, "\(rows)")
        for row in rows {
            #expect(row[1] == "-1", "\(row[0] ?? ""): reltuples \(row[1] ?? "NULL"), never analyzed")
            #expect(try analyzedColumns(row[0] ?? "") == 0, "\(row[0] ?? ""): no statistics")
        }
        // The check sees statistics when they are there.
        try connection.query("ANALYZE tapwire_credit_change")
        #expect(try analyzedColumns("tapwire_credit_change") > 0)
    }

    /// Migration 0325: a notification's row whose key had none stored is made from the fold's
    /// changes alone (its credits are all new), not read back from conversion_credits; the keys
    /// that had a row are still made again from the credits stored (the simulator's oracle,
    /// SimulatedAttributionTests, holds both to the rule). A first fold of new devices reads no
    /// stored credit (by any index or scan of conversion_credits); a second fold, whose taps
    /// re-credit the first's conversions away from notifications with rows, does.
    @Test func newNotificationsRowsAreMadeFromTheFoldsChanges() throws {
        let db = try TestDatabase.create()
        let app = try db.createApp()
        try Self.writeConvertingDevices(db, app: app.appId)
        let connection = try db.connect()
        defer { connection.close() }
        func fold() throws -> (changed: String?, read: String?, rows: String?) {
            try Self.queueEvents(db, app: app.appId)
            try connection.query("BEGIN")
            let changed = try connection.query("SELECT tapwire_attribute_pending($1::bigint)", [String(app.appId)]).scalar
            let read = try connection.query("""
                SELECT sum(pg_stat_get_xact_tuples_returned(oid))::text FROM pg_class
                WHERE oid = 'conversion_credits'::regclass
                   OR oid IN (SELECT indexrelid FROM pg_index WHERE indrelid = 'conversion_credits'::regclass)
                """).scalar
            try connection.query("COMMIT")
            let rows = try connection.query("SELECT count(*) FROM notification_conversions WHERE app_id = $1::bigint",
                                            [String(app.appId)]).scalar
            return (changed, read, rows)
        }
        let first = try fold()
        #expect(first.changed == "48" && first.rows != "0", "\(first)")
        #expect(first.read == "0", "new notifications: no stored credit read back (\(first))")
        // A tap a second after every delivery: conversions credited to a delivery move to its tap.
        try db.query("""
            INSERT INTO events (app_id, event_time, event_id, type, device_time, received_at, category, app_version, platform,
                                device_id, notification_id, action_identifier)
            SELECT app_id, event_time + interval '1 second', gen_random_uuid(), 'response', device_time, received_at, category,
                   app_version, platform, device_id, notification_id, 'open'
            FROM events WHERE app_id = $1::bigint AND type = 'delivered'
            """, [String(app.appId)])
        let second = try fold()
        #expect(second.changed != "0" && second.read != "0", "stored notifications' rows made again from the credits (\(second))")
    }

    /// Migration 0329: the notifications' rows (from the fold's changes, and for keys with a
    /// stored row from the stored credits) are made by one sort of the key's credits in time
    /// order, the first row of each key (DISTINCT ON) and a window over the whole key; 0328 took
    /// six ordered aggregates a key, each sorting the key's credits apart (PostgreSQL 15 sorts
    /// every ordered aggregate on its own: docs/outcomes.md, "Fewer copies in the fold"). The
    /// statements are planned as installed, under the function's settings: no aggregate node,
    /// one sort, one window each (0328's plans had an aggregate, and the test failed on them).
    @Test func theNotificationsRowsAreMadeInOneSort() throws {
        let db = try TestDatabase.create()
        let app = try db.createApp()
        let source = try #require(try db.query("SELECT prosrc FROM pg_proc WHERE oid = 'tapwire_attribute_pending(bigint, integer)'::regprocedure").rows.first?[0])
        let statements = source.ranges(of: "INSERT INTO tapwire_notification_change\n").compactMap { range -> String? in
            let tail = source[range.lowerBound...]
            guard let end = tail.firstIndex(of: ";") else { return nil }
            let statement = String(tail[..<end])
            // The stored rows' copy (sign -1, fed by the DELETE … RETURNING before it) aggregates nothing.
            return statement.contains("FROM removed") ? nil : statement
        }
        try #require(statements.count == 2, "the notifications' rows from the changes and from the stored credits: \(statements)")
        let (_, functionSettings) = try AttributionDeviceReadTests.touchRead(db)
        let connection = try db.connect()
        defer { connection.close() }
        // The function makes its scratch tables in a session's first call, the notifications'
        // change once a credit changed: a fold of 48 conversions.
        try Self.writeConvertingDevices(db, app: app.appId)
        try Self.queueEvents(db, app: app.appId)
        #expect(try connection.query("SELECT tapwire_attribute_pending($1::bigint)", [String(app.appId)]).scalar == "48")
        for (index, text) in statements.enumerated() {
            let statement = text.replacing(#/\bp_app\b/#, with: "$1").replacing(#/\bv_devices\b/#, with: "$2")
                .replacing(#/\bv_keys\b/#, with: "$3").replacing(#/\bv_names\b/#, with: "$4").replacing(#/\bv_currencies\b/#, with: "$5")
            let unbound = statement.matches(of: #/\b[pv]_[a-z_]+\b/#).map { String($0.output) }
            try #require(unbound.isEmpty, "variables left in the statement: \(unbound)")
            try connection.query("BEGIN")
            defer { _ = try? connection.query("ROLLBACK") }
            // Both run with hash joins only, as the statements around them (0307's SET LOCALs).
            for (name, value) in functionSettings + [("enable_nestloop", "off"), ("enable_mergejoin", "off")] {
                try connection.query("SELECT set_config($1, $2, true)", [name, value])
            }
            try connection.query(SQL("PREPARE notifications(bigint, text[], text[], text[], text[]) AS \(statement)", name: "tapwire_attribute_pending's notifications' rows"))
            defer { _ = try? connection.query("DEALLOCATE notifications") }
            let json = try #require(try connection.query("EXPLAIN (VERBOSE, FORMAT JSON) EXECUTE notifications(1, '{d}', '{n}', '{purchase}', '{EUR}')").scalar)
            let top = try #require(try JSONSerialization.jsonObject(with: json.data(using: .utf8)!) as? [[String: Any]])
            let plan = try #require(top.first?["Plan"] as? [String: Any])
            let types = QueryPlan.nodes(plan).compactMap { $0["Node Type"] as? String }
            #expect(!types.contains("Aggregate"), "statement \(index): no ordered aggregates, \(types)\n\(json)")
            #expect(types.filter { $0 == "Sort" }.count == 1 && types.filter { $0 == "WindowAgg" }.count == 1
                    && types.contains("Unique"), "statement \(index): one sort, one window, its first rows: \(types)\n\(json)")
        }
    }

    /// Migration 0305: the fold truncates the rule's scratch tables only when an earlier call of
    /// its transaction left rows; a TRUNCATE on every call gave each table a new relfilenode (a
    /// catalog write, and every statement reading them planned again: docs/benchmarks.md, "The
    /// scratch tables' TRUNCATE"). A session's tables keep their files from one app's fold to the
    /// next; and a fold of two apps, one transaction calling the function twice, credits the
    /// second app from its own events alone, none of the first's rows left over (the apps'
    /// devices have the same install ids).
    @Test func theRulesScratchTablesKeepTheirFilesFromFoldToFold() throws {
        let db = try TestDatabase.create()
        let apps = [try db.createApp().appId, try db.createApp().appId, try db.createApp().appId]
        for app in apps { try Self.writeConvertingDevices(db, app: app) }

        let connection = try db.connect()
        defer { connection.close() }
        let tables = ["tapwire_attribution_queue", "tapwire_attribution_span", "tapwire_attribution_conversion",
                      "tapwire_attribution_touch", "tapwire_credit_change", "tapwire_notification_change"]
        func files() throws -> [String: String] {
            Dictionary(uniqueKeysWithValues: try connection.query("""
                SELECT relname::text, relfilenode::text FROM pg_class
                WHERE relnamespace = pg_my_temp_schema() AND relname = ANY ($1::text[])
                """, ["{" + tables.joined(separator: ",") + "}"]).rows.map { ($0[0] ?? "", $0[1] ?? "") })
        }
        func fold(_ folded: [Int64]) throws -> [Int] {
            for app in folded { try Self.queueEvents(db, app: app) }
            try connection.query("BEGIN")
            let changed = try folded.map { app in
                try #require(Int(try connection.query("SELECT tapwire_attribute_pending($1::bigint)", [String(app)]).scalar ?? ""))
            }
            try connection.query("COMMIT")
            return changed
        }
        // Each fold's credits change, so every table is written; the first fold makes them.
        #expect(try fold([apps[0]]) == [48])
        let made = try files()
        #expect(made.count == tables.count, "\(made)")
        #expect(try fold([apps[1]]) == [48])
        #expect(try files() == made, "the scratch tables keep their relfilenodes from fold to fold")
        #expect(try fold([apps[0], apps[2]]) == [0, 48], "the first app's credits stand; the other's 48 conversions each credited once")
        for app in apps {
            let credits = try connection.query("SELECT count(*), count(DISTINCT event_id) FROM conversion_credits WHERE app_id = $1::bigint",
                                               [String(app)]).rows.first
            #expect(credits?[0] == "48" && credits?[1] == "48", "app \(app): \(String(describing: credits))")
        }
    }
}
