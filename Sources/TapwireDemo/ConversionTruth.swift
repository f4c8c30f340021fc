import Foundation
import TapwireCore
import TapwireStatistics

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
