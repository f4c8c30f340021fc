import Foundation
import TapwireCore
import TapwireStatistics

/// A randomised holdout as the team's backend runs one: each device assigned to the campaign at
/// random (held out with the stated share), its assignment posted by the sender, and a conversion
/// within the window with its arm's true probability. Pure and seeded.
public struct HoldoutSimulator: Sendable {
    public var configuration: HoldoutConfiguration

    public init(_ configuration: HoldoutConfiguration) { self.configuration = configuration }

    public func simulate() -> HoldoutSimulation {
        let c = configuration
        var rng = SeededGenerator(seed: c.seed ^ 0x401D_0075_5EED_0001)
        let span = Int64(max(1, c.days)) * HoldoutConfiguration.day
        let from = c.end.adding(microseconds: -span)
        var events: [WireEvent] = []
        var truth = HoldoutSimulation.Arms()
        // Whole milliseconds, the wire format's precision: the times stored are the times simulated.
        func millis(_ microseconds: Int64) -> Int64 { microseconds - microseconds % 1_000 }
        for i in 0..<max(0, c.devices) {
            let device = "holdout-\(c.seed)-\(i)"
            let heldOut = Sampling.unit(&rng) < c.holdoutShare
            let assigned = from.adding(microseconds: millis(Int64(Sampling.unit(&rng) * Double(span - 1_000))))
            events.append(.assignment(eventId: EventID.v7(at: assigned, using: &rng), timestamp: assigned, campaign: c.campaign,
                                      arm: heldOut ? HoldoutArm.heldOut.rawValue : HoldoutArm.treated.rawValue,
                                      holdoutShare: c.holdoutShare, deviceId: device))
            truth.assign(heldOut: heldOut)
            // Converts within the window and before the end: the window a report ending at `end` sees.
            let reach = min(c.window, c.end.microseconds - assigned.microseconds)
            if Sampling.unit(&rng) < (heldOut ? c.heldOutRate : c.treatedRate) {
                let at = assigned.adding(microseconds: millis(Int64(Sampling.unit(&rng) * Double(reach))))
                var value: Double?
                if let model = c.outcome.value {
                    let v = Sampling.unit(&rng) < model.zeroShare ? 0 : exp(model.mu + model.sigma * Sampling.normal(&rng))
                    value = min((v * 100).rounded() / 100, IngestLimits.maxConversionValue)
                }
                events.append(.conversion(eventId: EventID.v7(at: at, using: &rng), timestamp: at, name: c.outcome.name, value: value,
                                          currency: value == nil ? nil : c.currency, deviceId: device))
                truth.convert(heldOut: heldOut, value: value ?? 0)
            }
            // A sender's second assignment to the other arm, later: ignored by the first-assignment rule.
            if Sampling.unit(&rng) < c.reassignedShare {
                let rest = c.end.microseconds - assigned.microseconds - 1_000
                let later = assigned.adding(microseconds: 1_000 + millis(Int64(Sampling.unit(&rng) * Double(rest))))
                events.append(.assignment(eventId: EventID.v7(at: later, using: &rng), timestamp: later, campaign: c.campaign,
                                          arm: heldOut ? HoldoutArm.treated.rawValue : HoldoutArm.heldOut.rawValue,
                                          holdoutShare: c.holdoutShare, deviceId: device))
            }
        }
        return HoldoutSimulation(configuration: c, from: from, events: events, truth: truth)
    }
}
