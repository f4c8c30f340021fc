/// Why a document could not be parsed. Codes are stable and end up in API error bodies.
public struct JSONParseError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        case malformed = "malformed_json"
        case invalidUTF8 = "invalid_utf8"
        case tooDeep = "json_too_deep"
    }
    public var kind: Kind
    public var offset: Int
    public var message: String
    public var description: String { "\(message) at byte \(offset)" }
}
