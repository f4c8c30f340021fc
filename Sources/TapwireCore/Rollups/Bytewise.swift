/// A key's text compared and hashed by its UTF-8 bytes, not by canonical equivalence as `String`
/// is: the device compares a category's or an action's identifier literally and PostgreSQL's
/// deterministic collations tell texts apart by their bytes, so "café" composed and decomposed
/// are two rows in SQL, and the rollups' keys carry their texts this way to keep them two as
/// well (docs/reports.md, "Texts compared by their bytes").
@propertyWrapper
public struct Bytewise<Value: BytewiseText>: Hashable, Sendable {
    public var wrappedValue: Value

    public init(wrappedValue: Value) { self.wrappedValue = wrappedValue }

    public static func == (lhs: Self, rhs: Self) -> Bool { Value.sameBytes(lhs.wrappedValue, rhs.wrappedValue) }

    public func hash(into hasher: inout Hasher) { wrappedValue.hashBytes(into: &hasher) }
}
