import Foundation
import TapwireCore
import TapwireStatistics

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
