import Foundation
import Testing
import TapwireCore
import TapwireStatistics
@testable import TapwireServer
import TapwireStore
import TapwireTestSupport

/// Changing an app's windows (`tapwire apps attribution`, docs/outcomes.md "Windows") recomputes
/// every credit: the credits, the notifications' rows and the conversion rollups then equal those
/// of an app that had the new windows when the same events were posted.
@Suite struct AttributionWindowsTests {
    static let devices = ["install-1", "install-2", "install-3", "install-4"]

    /// Deliveries, opens, actions, dismissals and conversions of a few devices over two days.
    static func batches(_ rng: inout SeededGenerator, start: Timestamp) -> [[UInt8]] {
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
                    return ConversionIngestionTests.conversion(extra, id: .v7(at: t, using: &rng), at: t)
                }
            }
            // No sentAt: no clock correction, so both apps store the same event times.
            return TestBatch.body(events, sentAt: nil, context: [("appVersion", "2.0"), ("platform", "iOS"), ("deviceId", .string(device))])
        }
    }

    /// Everything attribution wrote for an app, without the app's id; rows that changes brought
    /// back to zero are left out (a change leaves them, a fresh computation never makes them).
    static let attribution = """
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

    @Test func newWindowsRecomputeEveryCreditAsAFreshComputation() throws {
        let server = try TestCollector.start { $0.rateLimitPerSecond = 0; $0.rollupFoldMilliseconds = 3_600_000 }
        let changed = try server.database.createApp("changed")
        let fresh = try server.database.createApp("fresh")
        let connection = try server.database.connect()
        defer { connection.close() }
        let store = AttributionStore()
        let defaults = try store.windows(appId: changed.appId, on: connection)
        #expect(defaults?.direct == 3600 && defaults?.influence == 86_400)
        // The fresh app has the new windows before anything is posted: nothing to recompute.
        #expect(try store.setWindows(appId: fresh.appId, directSeconds: 600, influenceSeconds: 7200, on: connection)
                == AttributionStore.Recomputed(devices: 0, changedCredits: 0))

        var rng = SeededGenerator(seed: 35_004)
        let client = server.client()
        for body in Self.batches(&rng, start: Timestamp.now.adding(seconds: -3 * 86_400)) {
            for app in [changed, fresh] { _ = try ReportFixtures.post(client, key: app.writeKey.text, body) }
        }
        try RollupStore().fold(on: connection)
        let before = try connection.query(Self.attribution, [String(changed.appId)]).rows
        #expect(try connection.query("SELECT count(DISTINCT kind) FROM conversion_credits WHERE app_id = $1::bigint", [String(changed.appId)]).scalar == "3")
        #expect(before != (try connection.query(Self.attribution, [String(fresh.appId)]).rows), "the windows must matter to this data")

        let recomputed = try store.setWindows(appId: changed.appId, directSeconds: 600, influenceSeconds: 7200, on: connection)
        #expect(recomputed.devices == Int64(Self.devices.count))
        #expect(recomputed.changedCredits > 0)
        let set = try store.windows(appId: changed.appId, on: connection)
        #expect(set?.direct == 600 && set?.influence == 7200)
        let afterChange = try connection.query(Self.attribution, [String(changed.appId)]).rows
        let freshRows = try connection.query(Self.attribution, [String(fresh.appId)]).rows
        #expect(afterChange.count == freshRows.count)
        #expect(afterChange.filter { !freshRows.contains($0) }.isEmpty && freshRows.filter { !afterChange.contains($0) }.isEmpty,
                "only after the change: \(afterChange.filter { !freshRows.contains($0) }.prefix(6)); only fresh: \(freshRows.filter { !afterChange.contains($0) }.prefix(6))")
        #expect(try connection.query("SELECT count(*) FROM attribution_pending").scalar == "0")

        // And back: the first computation again.
        _ = try store.setWindows(appId: changed.appId, directSeconds: 3600, influenceSeconds: 86_400, on: connection)
        #expect(try connection.query(Self.attribution, [String(changed.appId)]).rows == before)
        // The database refuses what the CLI refuses.
        #expect(throws: DatabaseError.self) { try store.setWindows(appId: changed.appId, directSeconds: 0, influenceSeconds: 60, on: connection) }
        #expect(throws: DatabaseError.self) {
            try store.setWindows(appId: changed.appId, directSeconds: 60, influenceSeconds: 31 * 86_400, on: connection)
        }
    }
}
