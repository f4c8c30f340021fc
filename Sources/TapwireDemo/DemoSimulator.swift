import Foundation
import TapwireCore
import TapwireStatistics

/// Builds the demo population's telemetry: devices on several app versions and platforms,
/// categories with actions, text replies and dismissals, and a rich/text-only mix whose true
/// engagement difference is `upliftPoints`.
public struct DemoSimulator: Sendable {
    public var configuration: DemoConfiguration

    public init(_ configuration: DemoConfiguration) { self.configuration = configuration }

    static let versions: [(String, Double)] = [("3.2.1", 0.6), ("3.2.0", 0.25), ("3.1.0", 0.15)]
    static let platforms: [(String, Double)] = [("iOS", 0.9), ("watchOS", 0.1)]

    static let categories: [DemoCategory] = [
        DemoCategory(identifier: "message", title: "Messages",
                     actions: [("reply", true, false), ("mark_read", false, false), ("delete", false, true)],
                     customDismiss: true, baseRate: 0.30, mediaShare: 0.2, weight: 0.35),
        DemoCategory(identifier: "social_post", title: "Social",
                     actions: [("like", false, false), ("comment", true, false)],
                     customDismiss: false, baseRate: 0.18, mediaShare: 0.55, weight: 0.3),
        DemoCategory(identifier: "promo", title: "Promotions",
                     actions: [("shop_now", false, false), ("not_interested", false, true)],
                     customDismiss: true, baseRate: 0.08, mediaShare: 0.7, weight: 0.2,
                     campaign: ("winter-sale", ["A", "B"])),
        DemoCategory(identifier: "news", title: "News", actions: [("read_later", false, false)],
                     customDismiss: false, baseRate: 0.12, mediaShare: 0.6, weight: 0.12),
        DemoCategory(identifier: "digest", title: "Weekly digest", actions: [], customDismiss: false,
                     baseRate: 0.1, mediaShare: 0, weight: 0.03, sentOnly: true),
    ]

    /// App 3.1.0 registered `message` without customDismissAction: its dismissals are not measurable.
    static func registersCustomDismiss(_ category: DemoCategory, version: String) -> Bool {
        category.customDismiss && !(version == "3.1.0" && category.identifier == "message")
    }

    /// A simulated device: its facts and the events it will post, in order.
    struct SimulatedDevice {
        var version: String
        var platform: String
        var id: String
        var events: [WireEvent] = []
    }

    /// The whole run, drawn from one generator in a fixed order, so a seed gives the same plan.
    public func plan() -> DemoPlan {
        var rng = SeededGenerator(seed: configuration.seed)
        let span = Int64(configuration.days) * 86_400_000_000
        let from = configuration.end.adding(microseconds: -span)
        var devices: [SimulatedDevice] = (0..<max(1, configuration.devices)).map { i in
            SimulatedDevice(version: Self.pick(Self.versions, &rng), platform: Self.pick(Self.platforms, &rng), id: "demo-device-\(i)")
        }
        var unique = 0
        for n in 0..<configuration.notifications {
            unique += notify(n, from: from, span: span, devices: &devices, rng: &rng)
        }
        return DemoPlan(manifests: Self.manifests(), batches: batches(devices, rng: &rng), uniqueEvents: unique,
                        from: from, to: configuration.end)
    }

    /// Notification `n`: its delivery (or `sent`, for a sent-only category) and, when the user
    /// engaged or dismissed it, the response, on one device. Returns the events it made.
    func notify(_ n: Int, from: Timestamp, span: Int64, devices: inout [SimulatedDevice], rng: inout SeededGenerator) -> Int {
        let c = configuration
        let d = Int.random(in: 0..<devices.count, using: &rng)
        let category = Self.pick(Self.categories.map { ($0, $0.weight) }, &rng)
        let deliveredAt = from.adding(microseconds: Int64.random(in: 0..<span, using: &rng))
        let notificationId = "demo-\(c.seed)-\(n)"
        let requested = Double.random(in: 0..<1, using: &rng) < category.mediaShare
        let shown = requested && Double.random(in: 0..<1, using: &rng) >= c.mediaFailureRate
        var campaign: String?, variant: String?
        if let (name, variants) = category.campaign {
            campaign = name
            variant = variants[Int.random(in: 0..<variants.count, using: &rng)]
        }
        func common(_ type: WireEventType, _ time: Timestamp) -> WireEvent {
            WireEvent(eventId: EventID.v7(at: time, using: &rng), type: type, timestamp: time, notificationId: notificationId,
                      category: category.identifier, hasMedia: shown, mediaTypes: shown ? ["image"] : [],
                      categoryRegistered: type == .sent ? nil : true, campaign: campaign, variant: variant)
        }
        if category.sentOnly {
            devices[d].events.append(common(.sent, deliveredAt.adding(microseconds: -2_000_000)))
        } else {
            var delivered = common(.delivered, deliveredAt)
            delivered.mediaRequested = requested
            devices[d].events.append(delivered)
        }
        let rate = min(1, max(0, category.baseRate + (shown ? c.upliftPoints / 100 : 0)))
        let latency = exp(log(90.0) + 1.5 * Self.normal(&rng))
        var response = common(.response, deliveredAt.adding(seconds: min(latency, 6 * 86_400)))
        response.deliveredAt = deliveredAt
        guard Self.respond(&response, category: category, rate: rate, version: devices[d].version, rng: &rng) else { return 1 }
        devices[d].events.append(response)
        return 2
    }

    /// Whether the user responded at all and, if so, with what: the default action, one of the
    /// category's actions (with a reply's length), or the custom dismiss where it is registered.
    static func respond(_ response: inout WireEvent, category: DemoCategory, rate: Double, version: String,
                        rng: inout SeededGenerator) -> Bool {
        if Double.random(in: 0..<1, using: &rng) < rate {
            // Every registered action counts as engagement, destructive ones too.
            let usable = category.actions
            if usable.isEmpty || Double.random(in: 0..<1, using: &rng) < 0.55 {
                response.actionIdentifier = SystemAction.open
            } else {
                let action = usable[Int.random(in: 0..<usable.count, using: &rng)]
                response.actionIdentifier = action.id
                if action.textInput {
                    let length = Int(exp(log(20.0) + 0.8 * normal(&rng)).rounded())
                    response.userTextLength = Int64(min(2_000, max(1, length)))
                }
            }
            return true
        }
        if registersCustomDismiss(category, version: version), Double.random(in: 0..<1, using: &rng) < 0.3 {
            response.actionIdentifier = SystemAction.dismiss
            return true
        }
        return false
    }

    /// Each device's events cut into batches, shuffled across devices, with some posted twice
    /// later, as a client that lost the response does.
    func batches(_ devices: [SimulatedDevice], rng: inout SeededGenerator) -> [DemoBatch] {
        var batches: [DemoBatch] = []
        for device in devices {
            let context = WireContext(appVersion: device.version, build: device.version.replacingOccurrences(of: ".", with: ""),
                                      platform: device.platform, osVersion: device.platform == "iOS" ? "18.1" : "11.1",
                                      sdk: "tapwire-demo/1.0", deviceId: device.id)
            var start = 0
            while start < device.events.count {
                let end = min(device.events.count, start + max(1, configuration.eventsPerBatch))
                batches.append(DemoBatch(context: context, events: Array(device.events[start..<end])))
                start = end
            }
        }
        return Self.shuffledWithRetries(batches, retryFraction: configuration.retryFraction, rng: &rng)
    }

    /// The batches in a random posting order, `retryFraction` of them posted once more at a
    /// random later point, as a client that lost the response does.
    static func shuffledWithRetries(_ batches: [DemoBatch], retryFraction: Double, rng: inout SeededGenerator) -> [DemoBatch] {
        var batches = batches
        batches.shuffle(using: &rng)
        guard !batches.isEmpty else { return batches }
        let retries = Int((Double(batches.count) * retryFraction).rounded())
        for _ in 0..<retries {
            let original = batches[Int.random(in: 0..<batches.count, using: &rng)]
            batches.insert(original, at: Int.random(in: 0...batches.count, using: &rng))
        }
        return batches
    }

    /// Each app version's manifest, in canonical JSON: 3.1.0 lacks `message`'s custom dismiss.
    static func manifests() -> [[UInt8]] {
        versions.map { version, _ in
            Manifest(appVersion: version, categories: categories.map { category in
                ManifestCategory(identifier: category.identifier, title: category.title,
                                 options: registersCustomDismiss(category, version: version) ? ["customDismissAction"] : [],
                                 actions: category.actions.map { action in
                                     ManifestAction(identifier: action.id,
                                                    options: action.destructive ? ["destructive"] : action.textInput ? [] : ["foreground"],
                                                    textInput: action.textInput)
                                 })
            }).canonicalJSON.serializedBytes()
        }
    }

    static func pick<T>(_ choices: [(T, Double)], _ rng: inout SeededGenerator) -> T {
        let total = choices.reduce(0) { $0 + $1.1 }
        var x = Double.random(in: 0..<total, using: &rng)
        for (value, weight) in choices {
            if x < weight { return value }
            x -= weight
        }
        return choices[choices.count - 1].0
    }

    /// A standard normal draw (Box–Muller).
    static func normal(_ rng: inout SeededGenerator) -> Double {
        let u1 = Double.random(in: Double.ulpOfOne..<1, using: &rng)
        let u2 = Double.random(in: 0..<1, using: &rng)
        return (-2 * log(u1)).squareRoot() * cos(2 * .pi * u2)
    }
}
