/// SQL text with the name it is known by: its file under `sql/` (`sql/queries/report_counts.sql`)
/// for the embedded files, a short description for a statement built at run time. PostgreSQL runs
/// the text; a `DatabaseError` names the statement that failed by its name, so a failure in the
/// log points at the file to read.
public struct SQL: Sendable, Hashable, CustomStringConvertible {
    public let text: String
    public let name: String

    public init(_ text: String, name: String) {
        self.text = text
        self.name = name
    }

    /// A statement written inline (a literal such as `COMMIT`), named by its own text: its first
    /// line with runs of white space folded, cut at 60 characters.
    public init(inline text: String) {
        let firstLine = text.split(whereSeparator: \.isNewline).first { !$0.allSatisfy(\.isWhitespace) } ?? ""
        let folded = firstLine.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        let shown = folded.count > 60 ? String(folded.prefix(59)) + "…" : folded
        self.init(text, name: "inline SQL \"\(shown)\"")
    }

    public var description: String { name }
}
