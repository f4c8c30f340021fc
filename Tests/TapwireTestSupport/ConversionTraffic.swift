import Foundation
import TapwireCore
import TapwireStore

/// Deliveries, opens, actions, dismissals and conversions of a few install ids over two days,
/// for the attribution tests on PostgreSQL and on Citus (docs/outcomes.md). No `sentAt`: the
/// events' times do not depend on when a collector received them.
public enum ConversionTraffic {
    public static let devices = ["install-1", "install-2", "install-3", "install-4"]

    /// Twelve batches of forty events, each batch one device's.
    public static func batches(_ rng: inout some RandomNumberGenerator, start: Timestamp) -> [[UInt8]] {
        (0..<12).map { b in
            let device = devices[b % devices.count]
            let events: [JSONValue] = (0..<40).map { _ in
                let t = start.adding(microseconds: Int64.random(in: 0..<(2 * ReportFixtures.day), using: &rng))
                let n = JSONValue.string("n-\(Int.random(in: 0..<30, using: &rng))")
                switch Int.random(in: 0..<6, using: &rng) {
                case 0, 1: return TestBatch.event("delivered", id: .v7(at: t, using: &rng), at: t, category: "promo",
                                                  [("notificationId", n), ("hasMedia", .bool(Bool.random(using: &rng))), ("campaign", "spring")])
                case 2: return TestBatch.event("response", id: .v7(at: t, using: &rng), at: t, category: "promo",
                                               [("notificationId", n), ("actionIdentifier", .string([SystemAction.open, "buy", SystemAction.dismiss][Int.random(in: 0..<3, using: &rng)]))])
                default:
                    var extra: [(String, JSONValue)] = [("name", .string(["purchase", "signup"][Int.random(in: 0..<2, using: &rng)]))]
                    if Bool.random(using: &rng) { extra += [("value", .double(Double(Int.random(in: 100...5_000, using: &rng)) / 100)), ("currency", "USD")] }
                    if Int.random(in: 0..<4, using: &rng) == 0 { extra.append(("notificationId", n)) }
                    return .object([("eventId", .string(EventID.v7(at: t, using: &rng).description)), ("type", "conversion"), ("timestamp", .string(t.description))] + extra)
                }
            }
            // No sentAt: no clock correction, so both apps store the same event times.
            return TestBatch.body(events, sentAt: nil, context: [("appVersion", "2.0"), ("platform", "iOS"), ("deviceId", .string(device))])
        }
    }
}

/// Everything attribution wrote for an app (docs/outcomes.md), as text in key order, without the
/// app's id, so two apps or two databases given the same events compare row for row.
public enum AttributionSnapshot {
    /// Rows that changes brought back to zero are left out (a change leaves them, a fresh
    /// computation never makes them).
    public static let sql = """
        SELECT 'credit', event_id::text, concat_ws(' ', event_time, device_id, name, currency, value, kind, notification_key, touch_time,
               category, has_media, campaign, platform, action_identifier)
        FROM conversion_credits WHERE app_id = $1::bigint
        UNION ALL SELECT 'notification', device_id || ' ' || notification_key, concat_ws(' ', name, currency, touch_time, category, has_media,
               campaign, platform, first_kind, direct, influenced, value)
        FROM notification_conversions WHERE app_id = $1::bigint
        UNION ALL SELECT 'c', day::text, concat_ws(' ', category, has_media, name, currency, direct, influenced, converted, value_sum, value_sq, value_cube)
        FROM rollup_conversions WHERE app_id = $1::bigint AND (direct, influenced, converted, value_sum, value_sq, value_cube) <> (0, 0, 0, 0, 0, 0)
        UNION ALL SELECT 's', day::text, concat_ws(' ', category, campaign, platform, name, currency, rich_converted, text_converted)
        FROM rollup_conversion_strata WHERE app_id = $1::bigint AND (rich_converted, text_converted) <> (0, 0)
        UNION ALL SELECT 'a', day::text, concat_ws(' ', category, action_identifier, name, direct)
        FROM rollup_conversion_actions WHERE app_id = $1::bigint AND direct <> 0
        UNION ALL SELECT 't', day::text, concat_ws(' ', name, currency, kind, conversions, value_sum)
        FROM rollup_conversion_totals WHERE app_id = $1::bigint AND (conversions, value_sum) <> (0, 0)
        ORDER BY 1, 2, 3
        """

    public static func rows(appId: Int64, on connection: PostgresConnection) throws -> [[String?]] {
        try connection.query(sql, [String(appId)]).rows
    }
}

/// Where an install id is still held: every text, varchar, array or JSON column of every table
/// the catalog lists (so a table added later is covered), for the tests of forgetting a device.
public enum InstallIdScan {
    /// Every (table, column) of the schema whose values could hold an install id: text, varchar,
    /// their arrays, json and jsonb, of every table that is not a partition (a partition's rows
    /// are read through its parent).
    public static let textColumns = """
        SELECT c.relname, a.attname
        FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
        WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind IN ('r', 'p') AND NOT c.relispartition
          AND a.atttypid IN ('text'::regtype, 'varchar'::regtype, 'text[]'::regtype, 'varchar[]'::regtype, 'json'::regtype, 'jsonb'::regtype)
        ORDER BY 1, 2
        """

    /// The tables (and columns) any of whose values holds `id`, as a whole value or inside one.
    public static func holders(of id: String, on connection: PostgresConnection) throws -> [String] {
        var found: [String] = []
        for column in try connection.query(textColumns).rows {
            let table = try connection.query("SELECT quote_ident($1)", [column[0]]).scalar!
            let name = try connection.query("SELECT quote_ident($1)", [column[1]]).scalar!
            let hits = try connection.query("SELECT count(*) FROM \(table) WHERE strpos(\(name)::text, $1) > 0", [id]).scalar
            if hits != "0" { found.append("\(column[0]!).\(column[1]!)") }
        }
        return found
    }
}
