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
