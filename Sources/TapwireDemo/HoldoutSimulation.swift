import Foundation
import TapwireCore
import TapwireStatistics

/// A holdout simulation's events (the sender's assignments, the devices' conversions), what each
/// arm drew, and its batches to post.
public struct HoldoutSimulation: Sendable {
    /// What the simulation drew per arm: devices assigned (each once, its first assignment), those
    /// that converted, and the sum of their values.
    public struct Arms: Sendable, Equatable {
        public var treated = 0, treatedConverted = 0, heldOut = 0, heldOutConverted = 0
        public var treatedValue = 0.0, heldOutValue = 0.0

        mutating func assign(heldOut isHeldOut: Bool) {
            if isHeldOut { heldOut += 1 } else { treated += 1 }
        }

        mutating func convert(heldOut isHeldOut: Bool, value: Double) {
            if isHeldOut { heldOutConverted += 1; heldOutValue += value } else { treatedConverted += 1; treatedValue += value }
        }
    }

    public var configuration: HoldoutConfiguration
    public var from: Timestamp
    public var events: [WireEvent]
    public var truth: Arms

    public var uniqueEvents: Int { events.count }

    /// The batches in a posting order: the sender's batches across devices (every event carries
    /// its deviceId), assignments and conversions mixed and shuffled (a conversion often arrives
    /// before its assignment, a reassignment before the first one), some posted twice.
    public func plan() -> DemoPlan {
        let c = configuration
        var rng = SeededGenerator(seed: c.seed ^ 0x401D_0075_B47C_0002)
        let size = max(1, c.eventsPerBatch)
        let sender = WireContext(appVersion: "backend", platform: "server", sdk: "tapwire-demo-sender/1.0")
        var shuffled = events
        shuffled.shuffle(using: &rng)
        let batches = stride(from: 0, to: shuffled.count, by: size).map {
            DemoBatch(context: sender, events: Array(shuffled[$0..<min(shuffled.count, $0 + size)]))
        }
        return DemoPlan(manifests: [], batches: DemoSimulator.shuffledWithRetries(batches, retryFraction: c.retryFraction, rng: &rng),
                        uniqueEvents: uniqueEvents, from: from, to: c.end)
    }
}
