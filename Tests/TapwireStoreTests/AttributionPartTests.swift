import Testing
import TapwireCore
import TapwireStatistics
@testable import TapwireStore
import TapwireTestSupport

/// The collector and the database put an install id in the same attribution part (migration
/// 0328): the collector's port of hashtextextended(id, 0) gives PostgreSQL's hash for ids of every
/// length around lookup3's 12-byte blocks, non-ASCII ids and UUIDs; both say the same number of
/// parts; and tapwire_queue_attribution (a rebuild's, a change of windows') queues each device in
/// the part the commits use.
@Suite struct AttributionPartTests {
    static func ids() -> [String] {
        var rng = SeededGenerator(seed: 328)
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789-_é€😀")
        var ids = (0...40).map { n in String((0..<n).map { _ in alphabet.randomElement(using: &rng)! }) }
        ids += (0..<200).map { _ in EventID.v7(at: .now, using: &rng).description }
        ids += ["install-1", "install-2", "install-3", "install-4", "caf\u{E9}", "cafe\u{301}"]
        return ids
    }

    @Test func theCollectorsPartOfAnIdIsTheDatabases() throws {
        let db = try TestDatabase.create()
        #expect(try db.query("SELECT tapwire_attribution_parts()").scalar == String(AttributionPart.count))
        var parts = Set<Int>()
        for id in Self.ids() {
            let row = try db.query("SELECT hashtextextended($1, 0), coalesce((hashtextextended($1, 0) % $2 + $2) % $2, 0)",
                                   [id, String(AttributionPart.count)]).rows[0]
            #expect(row[0] == String(Int64(bitPattern: PostgresHash.textExtended(id))), "hash of \(id.debugDescription)")
            #expect(row[1] == String(AttributionPart.of(id)), "part of \(id.debugDescription)")
            parts.insert(AttributionPart.of(id))
        }
        #expect(parts == Set(0..<AttributionPart.count))
        #expect(AttributionPart.of(nil) == 0)
    }

    @Test func aQueueOfEveryConversionPutsEachDeviceInItsPart() throws {
        let db = try TestDatabase.create()
        let app = try db.createApp()
        let t = Timestamp(iso8601: "2026-11-20T10:00:00Z")!
        try db.query("SELECT tapwire_ensure_event_partitions('2026-11-20', '2026-11-20')")
        var rng = SeededGenerator(seed: 7)
        for (i, device) in (Self.ids().suffix(30) + [nil]).enumerated() {
            try db.query("""
                INSERT INTO events (app_id, event_id, type, event_time, device_time, received_at, category, device_id, conversion_name)
                VALUES ($1::bigint, $2::uuid, 'conversion', $3::timestamptz, $3::timestamptz, $3::timestamptz, '', $4, 'purchase')
                """, [String(app.appId), EventID.v7(at: t, using: &rng).description, t.adding(seconds: Double(i)).description, device])
        }
        #expect(try db.query("SELECT tapwire_queue_attribution($1::bigint, '-infinity', 'infinity')", [String(app.appId)]).scalar == "31")
        let rows = try db.query("""
            SELECT p.part, d FROM attribution_pending p, unnest(p.device_ids) d WHERE p.app_id = $1::bigint
            """, [String(app.appId)]).rows
        #expect(rows.count == 31)
        for row in rows { #expect(row[0] == String(AttributionPart.of(row[1] ?? nil)), "\(row)") }
        #expect(Set(rows.map { $0[0] }).count == AttributionPart.count)
    }
}
