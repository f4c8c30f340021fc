import Foundation
import TapwireCore
import TapwireStatistics

/// Devices that receive notifications (the demo's categories, rich or text-only, some with a
/// notificationId), respond to them or not, and convert at known rates: after an engaged response
/// within the direct window, after a delivery without one within the influence window, and
/// without any notification (organic). It knows what caused each conversion (`ConversionTruth`)
/// and, when no two notifications' windows overlap, each category's true conversion rate and
/// value per delivered. Pure and seeded: the same configuration gives the same simulation.
public struct OutcomeSimulator: Sendable {
    public var configuration: OutcomeConfiguration

    public init(_ configuration: OutcomeConfiguration) { self.configuration = configuration }

    static let day: Int64 = 86_400_000_000

    /// A time rounded down to the configured resolution.
    func rounded(_ microseconds: Int64) -> Int64 {
        let step = max(1, configuration.timeResolution)
        return microseconds - microseconds % step
    }

    public func simulate() -> OutcomeSimulation {
        let c = configuration
        var rng = SeededGenerator(seed: c.seed)
        let from = c.end.adding(microseconds: -Int64(c.days) * Self.day)
        // Organic conversions run past the end by the longest window a notification near the end
        // converts in, so every notification sees the same organic rate over its windows.
        let organicSpan = Int64(c.days) * Self.day + c.minimumGapForExactRates
        var devices: [OutcomeDevice] = []
        var truths: [ConversionTruth] = []
        for i in 0..<max(1, c.devices) {
            let version = DemoSimulator.pick(DemoSimulator.versions, &rng)
            let platform = DemoSimulator.pick(DemoSimulator.platforms, &rng)
            let id = "outcome-\(c.seed)-\(i)"
            var device = OutcomeDevice(context: WireContext(appVersion: version, build: version.replacingOccurrences(of: ".", with: ""),
                                                            platform: platform, osVersion: platform == "iOS" ? "18.1" : "11.1",
                                                            sdk: "tapwire-demo/1.0", deviceId: id),
                                       currency: c.currencies.isEmpty ? "EUR" : c.currencies[Int(Sampling.unit(&rng) * Double(c.currencies.count))])
            var deviceTruths: [ConversionTruth] = []
            let meanGap = Double(Self.day) / max(c.notificationsPerDeviceDay, 1e-9)
            let extraGap = max(0, meanGap - Double(c.minimumGap))
            var t = from.microseconds + Int64(Sampling.unit(&rng) * meanGap)
            var n = 0
            while t < c.end.microseconds {
                notify(n, at: Timestamp(microseconds: rounded(t)), device: &device, truths: &deviceTruths, rng: &rng)
                n += 1
                t += c.minimumGap + Int64(-extraGap * log(Sampling.unit(&rng)))
            }
            let organic = Sampling.poisson(c.organicPerDeviceDay * Double(organicSpan) / Double(Self.day), &rng)
            for _ in 0..<organic {
                let time = from.adding(microseconds: rounded(Int64(Sampling.unit(&rng) * Double(organicSpan))))
                let event = convert(at: time, naming: nil, device: &device, rng: &rng)
                deviceTruths.append(ConversionTruth(event: event, device: device.id, cause: .organic, notificationKey: nil))
            }
            device.events.sort { ($0.timestamp.microseconds, $0.eventId) < ($1.timestamp.microseconds, $1.eventId) }
            device.markUnambiguous(&deviceTruths, directWindow: c.directWindow, influenceWindow: c.influenceWindow)
            truths += deviceTruths
            devices.append(device)
        }
        return OutcomeSimulation(configuration: c, from: from, devices: devices, truths: truths)
    }

    /// Notification `n` of a device at `time`: its delivery, the response if any, and the
    /// conversion it leads to if any.
    func notify(_ n: Int, at time: Timestamp, device: inout OutcomeDevice, truths: inout [ConversionTruth], rng: inout SeededGenerator) {
        let c = configuration
        let category = DemoSimulator.pick(DemoSimulator.categories.map { ($0, $0.weight) }, &rng)
        let notificationId = Sampling.unit(&rng) < c.notificationIdShare ? "\(device.id)-n\(n)" : nil
        let requested = Sampling.unit(&rng) < category.mediaShare
        let shown = requested && Sampling.unit(&rng) >= c.mediaFailureRate
        var campaign: String?, variant: String?
        if let (name, variants) = category.campaign {
            campaign = name
            variant = variants[Int(Sampling.unit(&rng) * Double(variants.count))]
        }
        func event(_ type: WireEventType, _ at: Timestamp) -> WireEvent {
            WireEvent(eventId: EventID.v7(at: at, using: &rng), type: type, timestamp: at, notificationId: notificationId,
                      category: category.identifier, hasMedia: shown, mediaTypes: shown ? ["image"] : [],
                      categoryRegistered: type == .sent ? nil : true, campaign: campaign, variant: variant)
        }
        if category.sentOnly {
            device.events.append(event(.sent, time.adding(microseconds: -2_000_000)))
            return
        }
        var delivered = event(.delivered, time)
        delivered.mediaRequested = requested
        device.events.append(delivered)
        device.delivered[category.identifier, default: 0] += 1
        let rate = OutcomeSimulation.engagementRate(category, rich: shown, c)
        var response = event(.response, time.adding(microseconds: rounded(Int64(Sampling.unit(&rng) * Double(c.latencyMax)))))
        response.deliveredAt = time
        var engaged: WireEvent?
        if DemoSimulator.respond(&response, category: category, rate: rate, version: device.context.appVersion, rng: &rng) {
            device.events.append(response)
            if response.actionIdentifier != SystemAction.dismiss { engaged = response }
        }
        let boost = shown ? c.richConversionUpliftPoints / 100 : 0
        if let engaged {
            guard Sampling.unit(&rng) < min(1, c.directRate + boost) else { return }
            let named = notificationId != nil && Sampling.unit(&rng) < c.namedShare
            let at = engaged.timestamp.adding(microseconds: rounded(Int64(Sampling.unit(&rng) * Double(c.directWindow))))
            let conversion = convert(at: at, naming: named ? notificationId : nil, device: &device, rng: &rng)
            truths.append(ConversionTruth(event: conversion, device: device.id, cause: .engagedResponse(engaged.eventId),
                                          notificationKey: notificationId ?? "event:\(engaged.eventId)"))
        } else if Sampling.unit(&rng) < min(1, c.influencedRate + boost) {
            let at = time.adding(microseconds: rounded(Int64(Sampling.unit(&rng) * Double(c.influenceWindow))))
            let conversion = convert(at: at, naming: nil, device: &device, rng: &rng)
            truths.append(ConversionTruth(event: conversion, device: device.id, cause: .delivery(delivered.eventId),
                                          notificationKey: notificationId ?? "event:\(delivered.eventId)"))
        }
    }

    /// A conversion of the device at `time`: a name by its weight, a value in the device's
    /// currency, posted by the device itself or by the app's backend (then with its deviceId).
    func convert(at time: Timestamp, naming notificationId: String?, device: inout OutcomeDevice, rng: inout SeededGenerator) -> WireEvent {
        let c = configuration
        let outcome = DemoSimulator.pick(c.outcomes.map { ($0, $0.weight) }, &rng)
        var value: Double?
        if let model = outcome.value {
            var v = Sampling.unit(&rng) < model.zeroShare ? 0 : exp(model.mu + model.sigma * Sampling.normal(&rng))
            if c.roundValuesToCents { v = (v * 100).rounded() / 100 }
            value = min(v, IngestLimits.maxConversionValue)
        }
        let byBackend = Sampling.unit(&rng) < c.backendShare
        let event = WireEvent.conversion(eventId: EventID.v7(at: time, using: &rng), timestamp: time, name: outcome.name, value: value,
                                         currency: value == nil ? nil : device.currency, notificationId: notificationId,
                                         deviceId: byBackend ? device.id : nil)
        device.events.append(event)
        return event
    }
}

/// A simulated device: its batch context, currency and events in time order (conversions the
/// backend posts carry the device's id themselves).
public struct OutcomeDevice: Sendable {
    public var context: WireContext
    public var currency: String
    public var events: [WireEvent] = []
    /// Delivered notifications by category.
    public var delivered: [String: Int] = [:]

    public var id: String { context.deviceId ?? "" }

    /// Marks each truth unambiguous when no other tap or delivery of the device competes for
    /// its conversion: the rule (docs/outcomes.md) must then credit exactly its cause.
    func markUnambiguous(_ truths: inout [ConversionTruth], directWindow: Int64, influenceWindow: Int64) {
        let engaged = events.filter { $0.type == .response && $0.actionIdentifier != SystemAction.dismiss }
        let deliveries = events.filter { $0.type == .delivered }
        for i in truths.indices {
            let t = truths[i].time.microseconds
            func engagedIn(_ range: ClosedRange<Int64>, except id: EventID? = nil) -> Bool {
                engaged.contains { range.contains($0.timestamp.microseconds) && $0.eventId != id }
            }
            switch truths[i].cause {
            case .engagedResponse(let id):
                let tap = engaged.first { $0.eventId == id }!
                // Named: the rule takes that notification's tap whatever else lies in the window.
                truths[i].unambiguous = truths[i].named || !engagedIn(tap.timestamp.microseconds...t, except: id)
            case .delivery(let id):
                let d = deliveries.first { $0.eventId == id }!.timestamp.microseconds
                truths[i].unambiguous = !engagedIn(min(d + 1, t)...t) && !engagedIn((t - directWindow)...t)
                    && !deliveries.contains { (d...t).contains($0.timestamp.microseconds) && $0.eventId != id }
            case .organic:
                truths[i].unambiguous = !engagedIn((t - directWindow)...t)
                    && !deliveries.contains { ((t - influenceWindow)...t).contains($0.timestamp.microseconds) }
            }
        }
    }
}

/// What caused a simulated conversion, and whether the rule can only credit that.
public struct ConversionTruth: Sendable, Equatable {
    public enum Cause: Sendable, Equatable {
        /// Followed this engaged response within the direct window: direct.
        case engagedResponse(EventID)
        /// Followed this delivery, without an engaged response, within the influence window: influenced.
        case delivery(EventID)
        /// Followed no notification: unattributed.
        case organic
    }

    public var eventId: EventID
    public var device: String
    public var time: Timestamp
    public var name: String
    public var named: Bool
    public var cause: Cause
    /// The causing notification as the rule names it: its notificationId, or "event:" and the
    /// event id of the tap or delivery.
    public var notificationKey: String?
    /// No other tap or delivery of the device competes for this conversion.
    public var unambiguous = false

    init(event: WireEvent, device: String, cause: Cause, notificationKey: String?) {
        eventId = event.eventId
        self.device = device
        time = event.timestamp
        name = event.name ?? ""
        named = event.notificationId != nil
        self.cause = cause
        self.notificationKey = notificationKey
    }

    /// The credit's kind as conversion_credits stores it: 1 direct, 2 influenced, 3 unattributed.
    public var kind: Int {
        switch cause {
        case .engagedResponse: 1
        case .delivery: 2
        case .organic: 3
        }
    }
}

/// A simulation's devices and truth, its batches to post, and the true rates it was drawn from.
public struct OutcomeSimulation: Sendable {
    public var configuration: OutcomeConfiguration
    public var from: Timestamp
    public var devices: [OutcomeDevice]
    public var truths: [ConversionTruth]

    public var uniqueEvents: Int { devices.reduce(0) { $0 + $1.events.count } }

    /// The batches in a posting order: each device's own events in batches in time order, the
    /// backend's conversions in batches across devices, all shuffled (late and out of order:
    /// a conversion often arrives before its delivery or tap), some posted twice.
    public func plan() -> DemoPlan {
        let c = configuration
        var rng = SeededGenerator(seed: c.seed ^ 0x5EED_0B7C_0A11_0CA7)
        let size = max(1, c.eventsPerBatch)
        var batches: [DemoBatch] = []
        var backend: [WireEvent] = []
        for device in devices {
            let own = device.events.filter { $0.deviceId == nil }
            backend += device.events.filter { $0.deviceId != nil }
            for start in stride(from: 0, to: own.count, by: size) {
                batches.append(DemoBatch(context: device.context, events: Array(own[start..<min(own.count, start + size)])))
            }
        }
        backend.sort { ($0.timestamp.microseconds, $0.eventId) < ($1.timestamp.microseconds, $1.eventId) }
        let server = WireContext(appVersion: "backend", platform: "server", sdk: "tapwire-demo-backend/1.0")
        for start in stride(from: 0, to: backend.count, by: size * 4) {
            batches.append(DemoBatch(context: server, events: Array(backend[start..<min(backend.count, start + size * 4)])))
        }
        return DemoPlan(manifests: DemoSimulator.manifests(),
                        batches: DemoSimulator.shuffledWithRetries(batches, retryFraction: c.retryFraction, rng: &rng),
                        uniqueEvents: uniqueEvents, from: from, to: c.end)
    }

    /// Whether the true rates below are exact: no notification's windows overlap another's.
    public var windowsApart: Bool {
        configuration.minimumGap > configuration.minimumGapForExactRates && configuration.latencyMax <= configuration.influenceWindow
    }

    /// P(a delivered notification of `category` is credited with at least one conversion named
    /// `name`): the conversion rate the report estimates. Nil where it is not exact (windows
    /// overlap) or the category is never delivered.
    public func trueConversionRate(category: String, name: String) -> Double? {
        perDelivered(category: category, name: name)?.rate
    }

    /// E[the value of the conversions named `name` credited to a delivered notification of
    /// `category`], in the devices' currency (exact for a single currency, before rounding to cents).
    public func trueValuePerDelivered(category: String, name: String) -> Double? {
        guard let expected = perDelivered(category: category, name: name),
              let model = configuration.outcomes.first(where: { $0.name == name })?.value else { return nil }
        return expected.count * model.mean
    }

    /// Per delivered notification: the probability of at least one credited conversion named
    /// `name`, and their expected number. A notification's credited stretch is [delivery, tap +
    /// direct window] when engaged (the tap at a uniform latency L), else [delivery, delivery +
    /// influence window]; organic conversions (rate λ) in it are credited too.
    func perDelivered(category identifier: String, name: String) -> (rate: Double, count: Double)? {
        let c = configuration
        guard windowsApart, let category = DemoSimulator.categories.first(where: { $0.identifier == identifier }), !category.sentOnly,
              let outcome = c.outcomes.first(where: { $0.name == name }) else { return nil }
        let share = outcome.weight / c.outcomes.reduce(0) { $0 + $1.weight }
        let lambda = c.organicPerDeviceDay / Double(OutcomeSimulator.day) * share
        let lMax = Double(c.latencyMax), wd = Double(c.directWindow), wi = Double(c.influenceWindow)
        // E[exp(−λL)] for L uniform on [0, lMax].
        let latency = lambda * lMax > 0 ? (1 - exp(-lambda * lMax)) / (lambda * lMax) : 1
        let shown = category.mediaShare * (1 - c.mediaFailureRate)
        var rate = 0.0, count = 0.0
        for (rich, p) in [(true, shown), (false, 1 - shown)] where p > 0 {
            let e = Self.engagementRate(category, rich: rich, c)
            let boost = rich ? c.richConversionUpliftPoints / 100 : 0
            let qd = min(1, c.directRate + boost) * share, qi = min(1, c.influencedRate + boost) * share
            let engaged = 1 - (1 - qd) * exp(-lambda * wd) * latency
            let passive = 1 - (1 - qi) * exp(-lambda * wi)
            rate += p * (e * engaged + (1 - e) * passive)
            count += p * (e * (qd + lambda * (lMax / 2 + wd)) + (1 - e) * (qi + lambda * wi))
        }
        return (rate, count)
    }

    /// P(an engaged response): the category's base rate plus the media uplift, as `tapwire demo`.
    static func engagementRate(_ category: DemoCategory, rich: Bool, _ c: OutcomeConfiguration) -> Double {
        min(1, max(0, category.baseRate + (rich ? c.upliftPoints / 100 : 0)))
    }

    /// The categories that are delivered (not sent-only), for rates over delivered.
    public static var deliveredCategories: [String] {
        DemoSimulator.categories.filter { !$0.sentOnly }.map(\.identifier)
    }
}
