import TapwireCore

/// A Swift value one column of a query's result decodes to. A store decodes each row once, where
/// it reads it, into typed values; nothing past it handles a column's text (the model is
/// postgres-nio's `PostgresDecodable`, over the text format libpq hands this code).
public protocol PostgresDecodable: Sendable {
    /// The value a column holds, from its text (`nil` is SQL NULL); nil when it holds none of
    /// this type: NULL where the type has no NULL, or text that is not one of its values.
    static func decode(postgresText text: String?) -> Self?
}

/// NULL decodes as nil, anything else as the wrapped type.
extension Optional: PostgresDecodable where Wrapped: PostgresDecodable {
    public static func decode(postgresText text: String?) -> Wrapped?? {
        guard let text else { return .some(.none) }
        return Wrapped.decode(postgresText: text).map { .some($0) }
    }
}
