import Foundation

/// An event read back from the queue, ready to be posted.
public struct QueuedRecord: Sendable, Equatable {
    /// Position in this process's queue; acknowledgements refer to it.
    public var sequence: UInt64
    public var eventId: TelemetryEventID
    public var recordedAtMicros: Int64
    /// The event's JSON object, exactly as it will appear in the batch.
    public var json: [UInt8]
}
