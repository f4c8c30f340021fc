import Foundation

public struct QueueError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable {
        case io = "queue_io"
        case locked = "queue_locked"
        case recordTooLarge = "record_too_large"
    }
    public var code: Code
    public var message: String
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }
    public var description: String { "\(code.rawValue): \(message)" }
}
