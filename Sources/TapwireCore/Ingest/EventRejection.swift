/// Why one event of a batch was not stored; the rest of the batch is unaffected.
public struct EventRejection: Error, Sendable, Equatable, Hashable {
    public enum Code: String, Sendable, CaseIterable {
        case notAnObject = "not_an_object"
        case missingField = "missing_field"
        case invalidField = "invalid_field"
        case unknownType = "unknown_type"
        case nulCharacter = "nul_character"
        case tooLong = "too_long"
        case tooLarge = "event_too_large"
        case duplicateKey = "duplicate_key"
        case tooOld = "timestamp_too_old"
    }
    public var index: Int
    public var eventId: String?
    public var code: Code
    public var reason: String

    public init(index: Int, eventId: String?, code: Code, reason: String) {
        self.index = index
        self.eventId = eventId
        self.code = code
        self.reason = reason
    }
}
