/// A text as its id in a `TextIds`: ids of one table are equal exactly when the texts' bytes are.
public struct TextId: RollupText, Sendable {
    public var id: Int32

    public init(_ id: Int32) { self.id = id }

    public static func text(_ id: Int32, of texts: TextIds) -> TextId { TextId(id) }
    public static func text(utf8 bytes: RawSpan, numberingIn texts: inout TextIds) -> TextId { TextId(texts.id(bytes)) }
    /// `TextIds` numbers '' 0 from the start.
    public static var empty: TextId { TextId(0) }
    public static var refersToTexts: Bool { true }
    public static func sameBytes(_ lhs: TextId, _ rhs: TextId) -> Bool { lhs.id == rhs.id }
    public func hashBytes(into hasher: inout Hasher) { hasher.combine(id) }
}
