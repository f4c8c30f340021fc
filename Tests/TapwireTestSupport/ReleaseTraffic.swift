import Foundation
import TapwireCore
import TapwireStatistics

/// Notification traffic of app versions over hours, as the SDK would post it: for the
/// release-regression tests. Counts are drawn from a seeded generator, so a scenario is the same
/// on every run.
public struct TrafficPlan: Sendable {
    public var category: String
    public var version: String
    public var platform: String
    /// The first hour (its start); deliveries are spread within each hour.
    public var from: Timestamp
    public var hours: Int
    public var deliveriesPerHour: Int
    /// The share of deliveries answered with each action identifier (Apple's for opens and
    /// dismissals); each delivery gets one response at most.
    public var rates: [String: Double]
    /// Actions whose responses carry a reply (text replies).
    public var textActions: Set<String>

    public init(category: String, version: String, platform: String = "iOS", from: Timestamp, hours: Int, deliveriesPerHour: Int,
                rates: [String: Double], textActions: Set<String> = []) {
        self.category = category
        self.version = version
        self.platform = platform
        self.from = from
        self.hours = hours
        self.deliveriesPerHour = deliveriesPerHour
        self.rates = rates
        self.textActions = textActions
    }
}

public enum ReleaseTraffic {
    /// Every plan's events, grouped by (version, platform): the batches' contexts.
    public static func events(_ plans: [TrafficPlan], seed: UInt64) -> [(version: String, platform: String, events: [JSONValue])] {
        var rng = SeededGenerator(seed: seed)
        var groups: [String: (String, String, [JSONValue])] = [:]
        var order: [String] = []
        for plan in plans {
            let key = plan.version + "\u{0}" + plan.platform
            if groups[key] == nil {
                groups[key] = (plan.version, plan.platform, [])
                order.append(key)
            }
            let actions = plan.rates.keys.sorted()
            for h in 0..<plan.hours {
                let hourStart = plan.from.adding(seconds: Double(h) * 3600)
                for i in 0..<plan.deliveriesPerHour {
                    // Spread over the hour's first 50 minutes; a response follows within 5 minutes, same hour.
                    let delivered = hourStart.adding(seconds: Double(i) * 3000 / Double(max(1, plan.deliveriesPerHour)))
                    groups[key]!.2.append(TestBatch.event("delivered", id: .v7(at: delivered, using: &rng), at: delivered,
                                                          category: plan.category))
                    var draw = Double(rng.next() >> 11) / Double(1 << 53)
                    for action in actions {
                        let rate = plan.rates[action]!
                        if draw < rate {
                            let at = delivered.adding(seconds: 60 + Double(rng.next() % 240))
                            var extra: [(String, JSONValue)] = [("actionIdentifier", .string(action)), ("deliveredAt", .string(delivered.description))]
                            if plan.textActions.contains(action) { extra.append(("userTextLength", .int(5 + Int(rng.next() % 40)))) }
                            groups[key]!.2.append(TestBatch.event("response", id: .v7(at: at, using: &rng), at: at, category: plan.category, extra))
                            break
                        }
                        draw -= rate
                    }
                }
            }
        }
        return order.map { groups[$0]! }
    }

    /// Posts every plan's events through `POST /v1/batch`, 2,000 to a batch; returns how many.
    @discardableResult
    public static func post(_ plans: [TrafficPlan], seed: UInt64, client: HTTPTestClient, writeKey: String) throws -> Int {
        var posted = 0
        for group in events(plans, seed: seed) {
            var start = 0
            while start < group.events.count {
                let slice = Array(group.events[start..<min(start + 2000, group.events.count)])
                let body = TestBatch.body(slice, context: [("appVersion", .string(group.version)), ("platform", .string(group.platform))])
                let response = try client.post("/v1/batch", key: writeKey, json: body)
                guard response.status == 200, response.json?["accepted"]?.numberValue?.integer == Int64(slice.count) else {
                    throw TestClientError(message: "batch not stored whole: \(response.status) \(response.text)")
                }
                posted += slice.count
                start += 2000
            }
        }
        return posted
    }

    /// A manifest body for `POST /v1/categories`: each category with its actions (text-input ones
    /// marked) and, when asked, customDismissAction.
    public static func manifest(version: String, categories: [(identifier: String, actions: [String], textInput: Set<String>, customDismiss: Bool)]) -> [UInt8] {
        let json: JSONValue = .object([
            ("appVersion", .string(version)),
            ("categories", .array(categories.map { c in
                .object([
                    ("identifier", .string(c.identifier)),
                    ("options", .array(c.customDismiss ? [.string("customDismissAction")] : [])),
                    ("actions", .array(c.actions.map { a in .object([("identifier", .string(a)), ("textInput", .bool(c.textInput.contains(a)))]) })),
                ])
            })),
        ])
        return json.serializedBytes()
    }
}
