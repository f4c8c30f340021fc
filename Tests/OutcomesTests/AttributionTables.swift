import Foundation
import TapwireCore
import TapwireDemo
import TapwireStatisticsOracle
import TapwireStore
import TapwireTestSupport

/// An app's attribution tables as rows of canonical text (timestamps as microseconds, numbers
/// without trailing zeros, booleans as true/false), beside the same tables recomputed by
/// Tests/Statistics/attribution.py from the app's raw events, so the two compare row for row.
struct AttributionTables: Equatable {
    static let names = ["credits", "notifications", "conversions", "strata", "actions", "totals"]

    /// Each table's rows without app_id, sorted; rows whose counts are all zero left out.
    var tables: [String: [[String?]]]
    /// Rows whose counts have all gone back to zero (a credit that moved away), by table.
    var zeroRows: [String: Int] = [:]

    private static func us(_ column: String) -> String { "(extract(epoch FROM \(column)) * 1000000)::bigint::text" }

    /// Each table's columns and the condition that a row's counts are all zero.
    private static let selects: [(name: String, table: String, columns: [String], zero: String)] = [
        ("credits", "conversion_credits",
         ["event_id::text", us("event_time"), "device_id", "name", "currency", "trim_scale(value)::text", "kind::text", "notification_key",
          us("touch_time"), "category", "has_media::text", "campaign", "platform", "action_identifier"], "false"),
        ("notifications", "notification_conversions",
         ["device_id", "notification_key", "name", "currency", us("touch_time"), "category", "has_media::text", "campaign", "platform",
          "first_kind::text", "direct::text", "influenced::text", "trim_scale(value)::text"], "false"),
        ("conversions", "rollup_conversions",
         [us("day"), "category", "has_media::text", "name", "currency", "direct::text", "influenced::text", "converted::text",
          "trim_scale(value_sum)::text", "trim_scale(value_sq)::text", "trim_scale(value_cube)::text"],
         "direct = 0 AND influenced = 0 AND converted = 0 AND value_sum = 0 AND value_sq = 0 AND value_cube = 0"),
        ("strata", "rollup_conversion_strata",
         [us("day"), "category", "campaign", "platform", "name", "currency", "rich_converted::text", "text_converted::text"],
         "rich_converted = 0 AND text_converted = 0"),
        ("actions", "rollup_conversion_actions", [us("day"), "category", "action_identifier", "name", "direct::text"], "direct = 0"),
        ("totals", "rollup_conversion_totals", [us("day"), "name", "currency", "kind::text", "conversions::text", "trim_scale(value_sum)::text"],
         "conversions = 0 AND value_sum = 0"),
    ]

    /// The tables as the fold left them.
    static func stored(_ database: TestDatabase, app: Int64) throws -> AttributionTables {
        let connection = try database.connect()
        defer { connection.close() }
        var result = AttributionTables(tables: [:])
        for s in selects {
            let json = try connection.query("""
                SELECT coalesce(json_agg(json_build_array(\(s.columns.joined(separator: ", ")))) FILTER (WHERE NOT (\(s.zero))), '[]'),
                       count(*) FILTER (WHERE \(s.zero))
                FROM \(s.table) WHERE app_id = $1
                """, [String(app)]).rows[0]
            result.tables[s.name] = try rows(Data((json[0] ?? "[]").utf8))
            result.zeroRows[s.name] = Int(json[1] ?? "0") ?? 0
        }
        return result
    }

    /// The same tables recomputed by the Python oracle from the app's stored events and windows.
    static func oracle(_ database: TestDatabase, app: Int64) throws -> AttributionTables {
        let connection = try database.connect()
        defer { connection.close() }
        let windows = try connection.query("""
            SELECT \(us("direct_window")), \(us("influence_window")) FROM apps WHERE app_id = $1
            """, [String(app)]).rows[0]
        let events = try connection.query("""
            SELECT coalesce(json_agg(json_build_object(
                'id', event_id::text, 'type', type::text, 'time', (extract(epoch FROM event_time) * 1000000)::bigint,
                'device', device_id, 'notification', notification_id, 'category', category, 'action', action_identifier,
                'hasMedia', has_media, 'campaign', campaign, 'platform', platform, 'name', conversion_name,
                'value', conversion_value, 'currency', conversion_currency)), '[]')
            FROM events WHERE app_id = $1 AND type IN ('delivered', 'response', 'conversion')
            """, [String(app)]).scalar ?? "[]"
        let input = #"{"directWindow":\#(windows[0]!),"influenceWindow":\#(windows[1]!),"events":\#(events)}"#
        let answer = try StatisticsOracle.run("attribution.py", input: Data(input.utf8))
        guard let object = answer as? [String: Any] else { throw TestClientError(message: "attribution.py answered no object") }
        var result = AttributionTables(tables: [:])
        for name in names {
            result.tables[name] = try rows(JSONSerialization.data(withJSONObject: object[name] ?? []))
        }
        return result
    }

    private static func rows(_ data: Data) throws -> [[String?]] {
        try JSONDecoder().decode([[String?]].self, from: data).sorted { sortKey($0) < sortKey($1) }
    }

    private static func sortKey(_ row: [String?]) -> String { row.map { $0 ?? "\u{1}NULL" }.joined(separator: "\u{0}") }

    /// What differs, table by table: rows only on one side (a few of each), or nothing.
    func differences(from other: AttributionTables, _ label: (String, String)) -> [String] {
        Self.names.compactMap { name in
            let mine = tables[name] ?? [], theirs = other.tables[name] ?? []
            guard mine != theirs else { return nil }
            let a = Set(mine.map(Self.sortKey)), b = Set(theirs.map(Self.sortKey))
            let onlyMine = a.subtracting(b).sorted().prefix(4), onlyTheirs = b.subtracting(a).sorted().prefix(4)
            func show(_ keys: ArraySlice<String>) -> String {
                keys.map { $0.replacingOccurrences(of: "\u{0}", with: " | ").replacingOccurrences(of: "\u{1}NULL", with: "∅") }
                    .joined(separator: "\n    ")
            }
            return "\(name): \(mine.count) rows in \(label.0), \(theirs.count) in \(label.1)\n  only in \(label.0):\n    \(show(onlyMine))\n  only in \(label.1):\n    \(show(onlyTheirs))"
        }
    }

    /// The credit of each conversion: event id → (kind, notification key).
    var creditsByEvent: [String: (kind: Int, key: String?)] {
        Dictionary(uniqueKeysWithValues: (tables["credits"] ?? []).map { ($0[0] ?? "", (Int($0[6] ?? "") ?? 0, $0[7])) })
    }
}

/// Posting over the real HTTP API: bodies without `sentAt` (no clock-skew offset) and with
/// timestamps to the microsecond, so the stored times are exactly the test's, and the windows'
/// boundaries fall where the test put them.
enum OutcomePosting {
    static func body(_ batch: DemoBatch) -> [UInt8] {
        let events = batch.events.map { event -> JSONValue in
            guard case .object(var object) = event.json else { return event.json }
            object.members = object.members.map { $0.key == "timestamp" ? ($0.key, .string(event.timestamp.iso8601(fractionDigits: 6))) : $0 }
            return .object(object)
        }
        return JSONValue.object([("context", batch.context.json), ("events", .array(events))]).serializedBytes()
    }

    /// Posts `batches` in order, folding where `foldAfter` says; returns (accepted, duplicates).
    static func post(_ batches: [DemoBatch], to app: CreatedApp, collector: TestCollector,
                     foldAfter: (Int) -> Bool) throws -> (accepted: Int, duplicates: Int) {
        let client = collector.client()
        let connection = try collector.database.connect()
        defer { connection.close() }
        var accepted = 0, duplicates = 0
        for (i, batch) in batches.enumerated() {
            let json = try ReportFixtures.post(client, key: app.writeKey.text, body(batch))
            accepted += Int(json["accepted"]?.numberValue?.integer ?? 0)
            duplicates += Int(json["duplicates"]?.numberValue?.integer ?? 0)
            if let rejected = json["rejected"]?.arrayValue, !rejected.isEmpty {
                throw TestClientError(message: "batch \(i) had rejections: \(rejected)")
            }
            if foldAfter(i) { try RollupStore().fold(on: connection) }
        }
        try RollupStore().fold(on: connection)
        return (accepted, duplicates)
    }
}
