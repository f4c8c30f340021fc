import Foundation
import TapwireCore
import TapwireStatistics

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
