import Foundation
import Testing
import TapwireCore
import TapwireStore
import TapwireTestSupport

/// Issue 35: a credit's index entries were most of attribution's WAL after its heap row
/// (docs/outcomes.md, "Attribution's WAL by relation"). Migration 0322 keeps in
/// conversion_credits' secondary indexes only what their readers look up: the index by touch
/// time holds direct credits alone (its readers, the report's actions, read `kind = 1`), and the
/// index by notification is one by device (its readers look up a device's credits). This test
/// fails if an influenced or unattributed credit is in the index by touch time, if an entry
/// carries the notification's key, or if a reader of either index no longer reads through it.
@Suite("conversion_credits' indexes")
struct ConversionCreditIndexTests {
    /// The indexes a plan reads conversion_credits through (and "Seq Scan" for a scan of it; a
    /// DELETE's ModifyTable names the table too, and reads nothing).
    static func creditReads(_ connection: PostgresConnection, _ explain: String) throws -> [String] {
        let json = try #require(try connection.query(SQL(explain, name: "a reader's plan")).scalar)
        let top = try #require(try JSONSerialization.jsonObject(with: json.data(using: .utf8)!) as? [[String: Any]])
        let plan = try #require(top.first?["Plan"] as? [String: Any])
        return QueryPlan.nodes(plan).compactMap { node in
            guard node["Relation Name"] as? String == "conversion_credits", node["Node Type"] as? String != "ModifyTable" else { return nil }
            return node["Index Name"] as? String ?? node["Node Type"] as? String
        }
    }

    @Test func theSecondaryIndexesHoldWhatTheirReadersLookUp() throws {
        let db = try TestDatabase.create()
        let app = try db.createApp()
        // Three credits of each kind, as the fold stores them (docs/outcomes.md, "The rule").
        try db.query("""
            INSERT INTO conversion_credits (app_id, event_id, event_time, device_id, name, currency, value, kind,
                                            notification_key, touch_time, category, has_media, campaign, platform, action_identifier)
            SELECT $1::bigint, gen_random_uuid(), timestamptz '2026-12-01 12:00:00+00' + g * interval '1 minute', 'install-' || (g % 2),
                   'purchase', 'EUR', 10, k,
                   CASE WHEN k < 3 THEN 'n-' || g END,
                   CASE WHEN k < 3 THEN timestamptz '2026-12-01 11:50:00+00' + g * interval '1 minute' END,
                   CASE WHEN k < 3 THEN 'promo' END, CASE WHEN k < 3 THEN true END, CASE WHEN k < 3 THEN 'spring' END,
                   CASE WHEN k < 3 THEN 'iOS' END, CASE WHEN k = 1 THEN 'com.apple.UNNotificationDefaultActionIdentifier' END
            FROM generate_series(1, 9) g, LATERAL (SELECT (g % 3 + 1)::smallint AS k) k
            """, [String(app.appId)])
        // ANALYZE counts each index's entries from the rows it samples (all nine): the rows a
        // partial index's predicate admits (pg_class.reltuples).
        try db.query("ANALYZE conversion_credits")
        let entries = try db.query("""
            SELECT c.relname, c.reltuples::bigint, pg_get_indexdef(c.oid)
            FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
            WHERE i.indrelid = 'conversion_credits'::regclass ORDER BY 1
            """).rows
        let byName = Dictionary(uniqueKeysWithValues: entries.map { ($0[0] ?? "", (count: $0[1] ?? "", definition: $0[2] ?? "")) })
        #expect(byName["conversion_credits_by_touch"]?.count == "3", "direct credits only: \(entries)")
        #expect(byName["conversion_credits_by_device"]?.definition.hasSuffix("(app_id, device_id)") == true, "\(entries)")
        #expect(byName["conversion_credits_by_notification"] == nil, "\(entries)")
        #expect(Set(byName.keys) == ["conversion_credits_pkey", "conversion_credits_by_time", "conversion_credits_by_touch",
                                     "conversion_credits_by_device"], "\(entries)")

        // Their readers still read through them, as the planner sees it when an index is possible
        // at all (seqscan off: nine rows are otherwise cheapest read whole).
        let connection = try db.connect()
        defer { connection.close() }
        try connection.query("SET enable_seqscan = off")
        try connection.query("SET enable_bitmapscan = off")
        try connection.query(SQL("PREPARE raw_actions AS \(EmbeddedSQL.reportRawConversionActions.text)", name: "raw actions"))
        #expect(try Self.creditReads(connection, """
            EXPLAIN (FORMAT JSON) EXECUTE raw_actions(\(app.appId), '2026-12-01', '2026-12-02', '{}', 'platform')
            """) == ["conversion_credits_by_touch"])
        try connection.query(SQL("PREPARE actions AS \(EmbeddedSQL.reportConversionActions.text)", name: "actions"))
        #expect(try Self.creditReads(connection, """
            EXPLAIN (FORMAT JSON) EXECUTE actions(\(app.appId), '{}', '{2026-12-01}', '{2026-12-02}', '{1}', '{}')
            """) == ["conversion_credits_by_touch"])
        // `devices forget` (migration 0202) and the fold's read of the changed devices' credits
        // (0307): a device's credits.
        #expect(try Self.creditReads(connection, """
            EXPLAIN (FORMAT JSON) DELETE FROM conversion_credits WHERE app_id = \(app.appId) AND device_id = 'install-1'
            """) == ["conversion_credits_by_device"])
        #expect(try Self.creditReads(connection, """
            EXPLAIN (FORMAT JSON) SELECT * FROM conversion_credits s
            WHERE s.app_id = \(app.appId) AND s.device_id = ANY ('{install-0,install-1}'::text[])
            """) == ["conversion_credits_by_device"])
    }
}
