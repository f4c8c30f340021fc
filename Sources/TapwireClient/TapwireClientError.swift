import Foundation

public struct TapwireClientError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable {
        case queueIO = "queue_io"
        case queueLocked = "queue_locked"
        case eventTooLarge = "event_too_large"
        case compression = "compression_failed"
        case manifestRejected = "manifest_rejected"
        case closed = "client_closed"
    }
    public var code: Code
    public var message: String
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }
    public var description: String { "\(code.rawValue): \(message)" }

    init(_ error: QueueError) {
        switch error.code {
        case .io: self.init(.queueIO, error.message)
        case .locked: self.init(.queueLocked, error.message)
        case .recordTooLarge: self.init(.eventTooLarge, error.message)
        }
    }
}
