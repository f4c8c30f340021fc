/// One event the collector (or the SDK, for a batch of one still too large) refused. Reported
/// through the rejection callback; the event is then gone from the queue.
public struct BatchRejection: Sendable, Equatable, Hashable {
    /// Index in the posted batch.
    public var index: Int
    public var eventId: String?
    public var code: String
    public var reason: String

    public init(index: Int, eventId: String?, code: String, reason: String) {
        self.index = index
        self.eventId = eventId
        self.code = code
        self.reason = reason
    }
}
