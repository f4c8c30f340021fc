/// A key's text compared and hashed by its UTF-8 bytes, not by canonical equivalence as `String`
/// is: the device compares a category's or an action's identifier literally (NSString's
/// `isEqual(to:)`, UTF-16 code units) and PostgreSQL's deterministic collations tell texts apart
/// by their bytes, so "café" composed and decomposed are two rows in SQL. The rollups' keys, the
/// report's groupings, the mismatch rules and the SDK's registered set carry identifiers this way
/// to keep them two as well (docs/reports.md, "Texts compared by their bytes").
@propertyWrapper
public struct Bytewise<Value: BytewiseText>: Hashable, Sendable {
    public var wrappedValue: Value

    @inlinable public init(wrappedValue: Value) { self.wrappedValue = wrappedValue }

    /// A text as a key of a dictionary or a set (`[Bytewise<String>: …]`).
    @inlinable public init(_ value: Value) { self.wrappedValue = value }

    // Inlinable, as they were inside TapwireCore before the type moved here: the fold and the
    // rebuild compare and hash keys for every event (docs/reports.md, "Texts compared by their bytes").
    @inlinable public static func == (lhs: Self, rhs: Self) -> Bool { Value.sameBytes(lhs.wrappedValue, rhs.wrappedValue) }

    @inlinable public func hash(into hasher: inout Hasher) { wrappedValue.hashBytes(into: &hasher) }
}

/// `String`'s order, and canonically equivalent texts (which `String` finds neither before the
/// other) by their bytes: a stable order wherever look-alike keys are listed, and for texts of one
/// normal form, as every identifier of the bench data is, the order `String` gives.
extension Bytewise: Comparable where Value == String {
    public static func < (lhs: Self, rhs: Self) -> Bool {
        lhs.wrappedValue < rhs.wrappedValue
            || (!(rhs.wrappedValue < lhs.wrappedValue) && lhs.wrappedValue.utf8.lexicographicallyPrecedes(rhs.wrappedValue.utf8))
    }
}

/// Literals as keys, as in `let registered: Set<Bytewise<String>> = ["message"]`.
extension Bytewise: ExpressibleByStringLiteral, ExpressibleByExtendedGraphemeClusterLiteral, ExpressibleByUnicodeScalarLiteral
where Value == String {
    public init(stringLiteral value: String) { self.wrappedValue = value }
}

extension Bytewise: CustomStringConvertible where Value == String {
    public var description: String { wrappedValue }
}
