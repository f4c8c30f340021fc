import Foundation

/// A value in a log line. Callers pass counts, codes and ids; never keys, user text or IPs.
public enum LogValue: Sendable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByFloatLiteral
{
    case string(String)
    case int(Int64)
    case double(Double)
    case bool(Bool)

    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .int(Int64(value)) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public static func of<I: BinaryInteger>(_ value: I) -> LogValue { .int(Int64(clamping: value)) }

    var json: JSONValue {
        switch self {
        case .string(let s): return .string(s)
        case .int(let i): return .int(i)
        case .double(let d): return .double((d * 1000).rounded() / 1000)
        case .bool(let b): return .bool(b)
        }
    }
}
