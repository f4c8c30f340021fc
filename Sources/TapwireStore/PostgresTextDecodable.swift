import TapwireCore

/// A type whose values are never NULL, read from PostgreSQL's text output of one.
public protocol PostgresTextDecodable: PostgresDecodable {
    init?(postgresText text: String)
}

extension PostgresTextDecodable {
    public static func decode(postgresText text: String?) -> Self? { text.flatMap(Self.init(postgresText:)) }
}

extension String: PostgresTextDecodable {
    public init?(postgresText text: String) { self = text }
}

extension Int64: PostgresTextDecodable {
    public init?(postgresText text: String) { self.init(text) }
}

extension Int: PostgresTextDecodable {
    public init?(postgresText text: String) { self.init(text) }
}

extension Int16: PostgresTextDecodable {
    public init?(postgresText text: String) { self.init(text) }
}

extension Double: PostgresTextDecodable {
    public init?(postgresText text: String) { self.init(text) }
}

/// `t` or `f`, as PostgreSQL writes a boolean.
extension Bool: PostgresTextDecodable {
    public init?(postgresText text: String) {
        switch text {
        case "t": self = true
        case "f": self = false
        default: return nil
        }
    }
}

/// An instant comes back as microseconds since 1970 (`(extract(epoch FROM t) * 1000000)::bigint`),
/// never as timestamptz text, whose form depends on the session's DateStyle and TimeZone (behind
/// a transaction pooler, the server's).
extension Timestamp: PostgresTextDecodable {
    public init?(postgresText text: String) {
        guard let microseconds = Int64(text) else { return nil }
        self.init(microseconds: microseconds)
    }
}

/// A string enum decodes from its raw value; one the code does not know is not one of its values.
extension PostgresTextDecodable where Self: RawRepresentable, Self.RawValue == String {
    public init?(postgresText text: String) { self.init(rawValue: text) }
}

extension EventType: PostgresTextDecodable {}
extension APIKey.Kind: PostgresTextDecodable {}

extension FindingKind: PostgresTextDecodable {
    public init?(postgresText text: String) { self.init(rawValue: text) }
}

/// A one-dimensional bigint[] or smallint[] without NULLs, as PostgreSQL writes it (`{1,0,23}`).
extension Array: PostgresDecodable where Element == Int64 {
    public static func decode(postgresText text: String?) -> [Int64]? { PostgresValue.int64Array(text) }
}
