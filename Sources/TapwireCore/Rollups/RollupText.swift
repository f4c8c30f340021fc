/// What a rollup key holds of a text: the text itself (`String`: a report's edge minutes and
/// pending quarter hours, the oracle and the tests) or its id in a `TextIds` (`TextId`: the
/// rebuild's day, a commit's finest rows, the fold, which hash a word per text instead of its
/// bytes). `RollupTally` and `RollupTables` are generic over it, so both keep the one derivation
/// (docs/benchmarks.md, "The derived rows keyed by text ids", "The fold keyed by text ids").
public protocol RollupText: BytewiseText, Hashable {
    /// The text of id `id` of `texts`.
    static func text(_ id: Int32, of texts: TextIds) -> Self
    /// The text of these UTF-8 bytes, numbered in `texts` when a key holds ids: what a reader
    /// of stored rows makes of each text field (the fold's, `RollupTally.text(_:)`).
    static func text(utf8 bytes: RawSpan, numberingIn texts: inout TextIds) -> Self
    /// The empty text ('' in SQL).
    static var empty: Self { get }
    /// Whether a key refers to the tally's `texts`, which must then outlive its rows.
    static var refersToTexts: Bool { get }
}

extension String: RollupText {
    public static func text(_ id: Int32, of texts: TextIds) -> String { texts.strings[Int(id)] }
    public static func text(utf8 bytes: RawSpan, numberingIn texts: inout TextIds) -> String {
        bytes.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
    }
    public static var empty: String { "" }
    public static var refersToTexts: Bool { false }
}
