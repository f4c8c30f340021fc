import Foundation
import TapwireCore
import TapwireDemo

/// The traffic of two apps that the Citus and mixed-fleet tests give every side they compare:
/// the demo's population over a few days (categories, campaigns, variants, media, replies, three
/// app versions, iOS and watchOS), and an app whose new release broke a button and posts a
/// category it never registered (a release-regression finding and a mismatch finding). Batches
/// carry no `sentAt`, so the events' times do not depend on when a side received them.
public struct FleetScenario: Sendable {
    public var demoManifests: [[UInt8]] = []
    public var releaseManifests: [[UInt8]] = []
    public var demoBatches: [[UInt8]] = []
    public var releaseBatches: [[UInt8]] = []
    public var demoEvents = 0
    public var releaseEvents = 0
    public var demoFrom = Timestamp(microseconds: 0)
    public var demoTo = Timestamp(microseconds: 0)
    /// The broken release's first hour (a UTC midnight three days before `now`).
    public var release = Timestamp(microseconds: 0)

    static let hour: Int64 = 3_600_000_000
    static let day: Int64 = 24 * hour

    /// A body without `sentAt`: times are stored as sent.
    public static func body(_ context: JSONValue, _ events: [JSONValue]) -> [UInt8] {
        JSONValue.object([("context", context), ("events", .array(events))]).serializedBytes()
    }

    /// Everything before `now`: the demo ends an hour before the hour `now` is in.
    public init(now: Timestamp, demoNotifications: Int = 5_000, releaseDeliveriesPerHour: Int = 80) {
        var demo = DemoConfiguration(end: Timestamp(microseconds: RollupDeltas.floor(now.microseconds, Self.hour) - Self.hour))
        demo.seed = 7
        demo.devices = 300
        demo.notifications = demoNotifications
        demo.days = 5
        let plan = DemoSimulator(demo).plan()
        demoManifests = plan.manifests
        demoBatches = plan.batches.map { Self.body($0.context.json, $0.events.map(\.json)) }
        demoEvents = plan.uniqueEvents
        demoFrom = plan.from
        demoTo = plan.to

        release = Timestamp(microseconds: RollupDeltas.floor(now.microseconds, Self.day) - 3 * Self.day)
        let rates: [String: Double] = [SystemAction.open: 0.20, "accept": 0.10, "decline": 0.05, SystemAction.dismiss: 0.08]
        var broken = rates
        broken["accept"] = 0.005
        let perHour = releaseDeliveriesPerHour
        let plans = [
            TrafficPlan(category: "invite", version: "1.0", from: release.adding(seconds: -86_400), hours: 72, deliveriesPerHour: perHour, rates: rates),
            TrafficPlan(category: "invite", version: "1.1", from: release, hours: 48, deliveriesPerHour: perHour, rates: broken),
            // A category 1.1 never registered, shown without its buttons: a mismatch finding.
            TrafficPlan(category: "promo", version: "1.1", from: Timestamp(microseconds: RollupDeltas.floor(now.microseconds, Self.hour) - 3 * Self.hour),
                        hours: 2, deliveriesPerHour: 20, rates: [SystemAction.open: 0.1]),
        ]
        for group in ReleaseTraffic.events(plans, seed: 11) {
            let context = JSONValue.object([("appVersion", .string(group.version)), ("platform", .string(group.platform))])
            releaseEvents += group.events.count
            for start in stride(from: 0, to: group.events.count, by: 1_500) {
                releaseBatches.append(Self.body(context, Array(group.events[start..<min(group.events.count, start + 1_500)])))
            }
        }
        let invite = (identifier: "invite", actions: ["accept", "decline"], textInput: Set<String>(), customDismiss: true)
        releaseManifests = ["1.0", "1.1"].map { ReleaseTraffic.manifest(version: $0, categories: [invite]) }
    }
}
