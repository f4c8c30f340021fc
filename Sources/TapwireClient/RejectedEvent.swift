import Foundation

/// An event that will never be stored, with the collector's (or the SDK's) reason.
public struct RejectedEvent: Sendable, Equatable, Hashable {
    public var eventId: TelemetryEventID
    public var code: String
    public var reason: String
}
