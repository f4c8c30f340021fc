/// A problem with the batch as a whole, so nothing of it is stored.
public struct BatchError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable {
        case malformedJSON = "malformed_json"
        case invalidUTF8 = "invalid_utf8"
        case tooDeep = "json_too_deep"
        case invalidBatch = "invalid_batch"
        case tooManyEvents = "too_many_events"
    }
    public var code: Code
    public var message: String
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }
    public var description: String { "\(code.rawValue): \(message)" }
}
