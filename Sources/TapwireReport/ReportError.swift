import TapwireCore
import TapwireStatistics
import TapwireStore

/// Why a report could not be made. Codes are stable; the HTTP layer maps them to statuses.
public struct ReportError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable {
        case invalidParameter = "invalid_parameter"
        case unknownTimeZone = "unknown_time_zone"
        case invalidRange = "invalid_range"
    }
    public var code: Code
    public var message: String
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }
    public var description: String { message }
}
