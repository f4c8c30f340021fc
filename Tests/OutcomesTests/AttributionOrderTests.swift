import Foundation
import Testing
import TapwireCore
import TapwireDemo
import TapwireStatistics
import TapwireStore
import TapwireTestSupport

/// The order-independence edge cases of docs/outcomes.md by hand, each on a device of its own,
/// under the app's own windows (30 min direct, 6 h influence): every event posted alone, in time
/// order, in reverse and shuffled with every batch sent twice, folding after each post. Each
/// order gives the credits written here, the oracle's tables, and the same tables.
@Suite("Attribution edge cases in any order")
struct AttributionOrderTests {
    static let t = Timestamp(iso8601: "2026-11-10T12:00:00Z")!
    static let minute: Int64 = 60_000_000
    static let directWindow = 30 * minute, influenceWindow = 360 * minute

    /// Event ids whose order the test chooses: ties at one microsecond go to the greater.
    static func id(_ k: UInt64) -> EventID { EventID(high: 0x0193_8a2e_7b1c_7000 &+ (k << 12), low: 0x8000_0000_0000_0000 | k) }

    struct Posted {
        var device: String
        var event: WireEvent
    }

    /// The events, and for each conversion the credit the rule gives: kind and notification key.
    static func scenarios() -> (events: [Posted], expected: [EventID: (kind: Int, key: String?)]) {
        var events: [Posted] = [], expected: [EventID: (kind: Int, key: String?)] = [:]
        var next: UInt64 = 1
        func at(_ minutes: Double, _ micro: Int64 = 0) -> Timestamp { t.adding(microseconds: Int64(minutes * Double(minute)) + micro) }
        func add(_ device: String, _ type: WireEventType, _ time: Timestamp, _ notification: String?, action: String? = nil,
                 id: UInt64? = nil) -> EventID {
            let eventId = Self.id(id ?? next)
            next += 1
            events.append(Posted(device: device, event: WireEvent(eventId: eventId, type: type, timestamp: time, notificationId: notification,
                                                                  category: "promo", actionIdentifier: action, hasMedia: device.hasSuffix("rich"),
                                                                  campaign: "winter-sale")))
            return eventId
        }
        func convert(_ device: String, _ time: Timestamp, naming: String? = nil, _ kind: Int, _ key: String?) {
            let eventId = Self.id(next)
            next += 1
            events.append(Posted(device: device, event: .conversion(eventId: eventId, timestamp: time, name: "purchase", value: 19.99,
                                                                    currency: "EUR", notificationId: naming)))
            expected[eventId] = (kind, key)
        }
        // A conversion whose delivery arrives after it (in reverse and shuffled orders).
        _ = add("late-delivery", .delivered, at(-120), "n1")
        convert("late-delivery", at(0), 2, "n1")
        // A tap arriving after the conversion turns an influenced credit into a direct one.
        _ = add("late-tap-rich", .delivered, at(-20), "n2")
        _ = add("late-tap-rich", .response, at(-10), "n2", action: "shop_now")
        convert("late-tap-rich", at(0), 1, "n2")
        // A named notification among several taps; unnamed or naming another, the latest.
        _ = add("named", .response, at(-25), "n3a", action: SystemAction.open)
        _ = add("named", .response, at(-15), "n3b", action: "reply")
        _ = add("named", .response, at(-5), "n3c", action: SystemAction.open)
        convert("named", at(0), naming: "n3b", 1, "n3b")
        convert("named", at(0, 1), 1, "n3c")
        convert("named", at(0, 2), naming: "n3-never-tapped", 1, "n3c")
        // Named, but its tap left the direct window: the latest tap in it.
        convert("named", at(10), naming: "n3a", 1, "n3c")
        // Ties at one microsecond: two taps, two deliveries; the greater event id wins.
        _ = add("tied-taps", .response, at(-10), "n4a", action: SystemAction.open, id: 900)
        _ = add("tied-taps", .response, at(-10), "n4b", action: SystemAction.open, id: 901)
        convert("tied-taps", at(0), 1, "n4b")
        _ = add("tied-deliveries", .delivered, at(-120), "n4c", id: 903)
        _ = add("tied-deliveries", .delivered, at(-120), "n4d", id: 902)
        convert("tied-deliveries", at(0), 2, "n4c")
        // A tap at the conversion's microsecond precedes it.
        _ = add("tap-at-conversion", .response, at(0), "n4e", action: SystemAction.open)
        convert("tap-at-conversion", at(0), 1, "n4e")
        // A tap at the delivery's microsecond is not after it: the delivery still influences.
        _ = add("tap-at-delivery", .delivered, at(-180), "n4f")
        _ = add("tap-at-delivery", .response, at(-180), "n4g", action: SystemAction.open)
        convert("tap-at-delivery", at(0), 2, "n4f")
        // One microsecond after it, the tap ends the influence (and is beyond the direct window).
        _ = add("tap-after-delivery", .delivered, at(-180), "n4h")
        _ = add("tap-after-delivery", .response, at(-180, 1), "n4i", action: SystemAction.open)
        convert("tap-after-delivery", at(0), 3, nil)
        // The windows' boundaries are inside them; a microsecond beyond is outside.
        _ = add("direct-boundary", .response, at(-30), "n5a", action: SystemAction.open)
        convert("direct-boundary", at(0), 1, "n5a")
        _ = add("beyond-direct", .response, at(-30, -1), "n5b", action: SystemAction.open)
        convert("beyond-direct", at(0), 3, nil)
        _ = add("influence-boundary", .delivered, at(-360), "n5c")
        convert("influence-boundary", at(0), 2, "n5c")
        _ = add("beyond-influence", .delivered, at(-360, -1), "n5d")
        convert("beyond-influence", at(0), 3, nil)
        // A dismissal is not an engaged response: the delivery influences, nothing is direct.
        _ = add("dismissed", .delivered, at(-60), "n6")
        _ = add("dismissed", .response, at(-5), "n6", action: SystemAction.dismiss)
        convert("dismissed", at(0), 2, "n6")
        // Without a notificationId a notification is its tap's or delivery's event id.
        let delivery = add("no-id", .delivered, at(-60), nil)
        convert("no-id", at(0), 2, "event:\(delivery)")
        let tap = add("no-id", .response, at(10), nil, action: SystemAction.open)
        convert("no-id", at(11), 1, "event:\(tap)")
        return (events, expected)
    }

    @Test func everyOrderGivesTheRulesCreditsAndTheSameTables() throws {
        let (events, expected) = Self.scenarios()
        let collector = try TestCollector.start { $0.rateLimitPerSecond = 0 }
        defer { collector.stop() }
        var rng = SeededGenerator(seed: 7)
        let orders: [(String, [Posted], Bool)] = [("time order", events.sorted { $0.event.timestamp < $1.event.timestamp }, false),
                                                  ("reverse", events.sorted { $0.event.timestamp > $1.event.timestamp }, false),
                                                  ("shuffled, each twice", events.shuffled(using: &rng), true)]
        var tables: [AttributionTables] = []
        for (name, order, twice) in orders {
            let app = try collector.database.createApp()
            try collector.database.query("UPDATE apps SET direct_window = '30 minutes', influence_window = '6 hours' WHERE app_id = $1",
                                         [String(app.appId)])
            let batches = order.flatMap { posted -> [DemoBatch] in
                let batch = DemoBatch(context: WireContext(appVersion: "1.0", platform: "iOS", deviceId: posted.device), events: [posted.event])
                return twice ? [batch, batch] : [batch]
            }
            let posted = try OutcomePosting.post(batches, to: app, collector: collector) { _ in true }
            #expect(posted.accepted == events.count && posted.duplicates == (twice ? events.count : 0))
            let stored = try AttributionTables.stored(collector.database, app: app.appId)
            let credits = stored.creditsByEvent
            for (conversion, credit) in expected.sorted(by: { $0.key < $1.key }) {
                let got = credits[conversion.description]
                #expect(got?.kind == credit.kind && got?.key == credit.key,
                        "\(name): \(conversion) credited \(got.map { "\($0.kind) \($0.key ?? "∅")" } ?? "nothing"), the rule gives \(credit.kind) \(credit.key ?? "∅")")
            }
            let oracle = try AttributionTables.oracle(collector.database, app: app.appId)
            let differences = stored.differences(from: oracle, ("the database", "the oracle"))
            #expect(differences.isEmpty, "\(name):\n\(differences.joined(separator: "\n"))")
            #expect(stored.zeroRows.values.allSatisfy { $0 == 0 }, "\(name): rows whose credits moved away remain: \(stored.zeroRows)")
            let sums = try ConversionUpliftSums.stored(collector.database, app: app.appId)
            let recomputed = sums.differences(from: try ConversionUpliftSums.recomputed(collector.database, app: app.appId),
                                              ("kept", "recomputed"))
            #expect(recomputed.isEmpty && sums.queued == 0 && !sums.names.isEmpty, "\(name):\n\(recomputed.joined(separator: "\n"))")
            tables.append(stored)
        }
        for i in 1..<tables.count {
            let differences = tables[0].differences(from: tables[i], (orders[0].0, orders[i].0))
            #expect(differences.isEmpty, "\(differences.joined(separator: "\n"))")
        }
    }

    /// docs/outcomes.md: "a conversion without one [an install id] is stored and counted as
    /// unattributed": the commit queues it with a NULL id, and the fold credits it to nothing.
    @Test func aConversionWithoutAnInstallIdIsCountedAsUnattributed() throws {
        let collector = try TestCollector.start { $0.rateLimitPerSecond = 0 }
        defer { collector.stop() }
        let app = try collector.database.createApp()
        let conversion = WireEvent.conversion(eventId: Self.id(1), timestamp: Self.t, name: "purchase", value: 5, currency: "EUR")
        let batch = DemoBatch(context: WireContext(appVersion: "1.0", platform: "iOS"), events: [conversion])
        #expect(try OutcomePosting.post([batch], to: app, collector: collector) { _ in true }.accepted == 1)
        let stored = try AttributionTables.stored(collector.database, app: app.appId)
        let oracle = try AttributionTables.oracle(collector.database, app: app.appId)
        #expect(oracle.tables["totals"] == [["1794268800000000", "purchase", "EUR", "3", "1", "5"]])
        #expect(stored.creditsByEvent[conversion.eventId.description]?.kind == 3)
        #expect(stored.tables["totals"] == oracle.tables["totals"])
    }
}
