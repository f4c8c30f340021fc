import TapwireCore

/// The events of one request, ready to be staged: the app they belong to (from the key, never
/// from the body) and the device context they share.
public struct StagedBatch: Sendable {
    public var appId: Int64
    public var receivedAt: Timestamp
    public var context: DeviceContext
    public var events: [Event]

    public init(appId: Int64, receivedAt: Timestamp, context: DeviceContext, events: [Event]) {
        self.appId = appId
        self.receivedAt = receivedAt
        self.context = context
        self.events = events
    }
}
