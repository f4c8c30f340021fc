/// What a rollup key holds of a text: the text itself (`String`: the collector's commits, the
/// fold, the oracle and the tests) or its id in the day's `TextIds` (`TextId`: the rebuild, which
/// hashes a word per text instead of its bytes). `RollupTally` and `RollupTables` are generic over
/// it, so both keep the one derivation (docs/benchmarks.md, "The derived rows keyed by text ids").
public protocol RollupText: BytewiseText, Hashable {
    /// The text of id `id` of `texts`.
    static func text(_ id: Int32, of texts: TextIds) -> Self
    /// The empty text ('' in SQL).
    static var empty: Self { get }
    /// Whether a key refers to the tally's `texts`, which must then outlive its rows.
    static var refersToTexts: Bool { get }
}

extension String: RollupText {
    public static func text(_ id: Int32, of texts: TextIds) -> String { texts.strings[Int(id)] }
    public static var empty: String { "" }
    public static var refersToTexts: Bool { false }
}

/// A text as its id in a `TextIds`: ids of one table are equal exactly when the texts' bytes are.
public struct TextId: RollupText, Sendable {
    public var id: Int32

    public init(_ id: Int32) { self.id = id }

    public static func text(_ id: Int32, of texts: TextIds) -> TextId { TextId(id) }
    /// `TextIds` numbers '' 0 from the start.
    public static var empty: TextId { TextId(0) }
    public static var refersToTexts: Bool { true }
    public static func sameBytes(_ lhs: TextId, _ rhs: TextId) -> Bool { lhs.id == rhs.id }
    public func hashBytes(into hasher: inout Hasher) { hasher.combine(id) }
}
