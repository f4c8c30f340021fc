import Foundation
import TapwireCore

/// A batch ready to post: the device context and events; `sentAt` is filled at post time so
/// clock-skew correction sees a real send.
public struct DemoBatch: Sendable {
    public var context: WireContext
    public var events: [WireEvent]

    public init(context: WireContext, events: [WireEvent]) {
        self.context = context
        self.events = events
    }

    public func body(sentAt: Timestamp) -> [UInt8] {
        WireBatch.encode(sentAt: sentAt, context: context, events: events)
    }
}
