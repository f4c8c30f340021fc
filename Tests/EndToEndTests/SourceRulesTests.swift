import Foundation
import Testing

/// The house rules that a reader can check by grep, checked here so they stay true
/// (docs/architecture.md): every libpq call in one file, every libmicrohttpd call in one file, and
/// no SQL written inline in the product, whose statements live in `sql/`.
@Suite("Source rules")
struct SourceRulesTests {
    static let root = DocumentationTests.root

    /// The product's modules: what ships in `tapwire` and the SDK. Tools and tests may write SQL inline.
    static let productModules = ["TapwireWire", "TapwireCore", "TapwireStore", "TapwireReport", "TapwireServer", "TapwireCommandLine",
                                 "TapwireClient", "tapwire"]

    /// Every Swift file under Sources/, as (path from the root, text).
    static func sources() throws -> [(path: String, text: String)] {
        let base = root.appendingPathComponent("Sources")
        let enumerator = try #require(FileManager.default.enumerator(atPath: base.path))
        var out: [(String, String)] = []
        while let relative = enumerator.nextObject() as? String {
            guard relative.hasSuffix(".swift") else { continue }
            out.append(("Sources/" + relative, try String(contentsOf: base.appendingPathComponent(relative), encoding: .utf8)))
        }
        return out
    }

    static func files(matching pattern: String, in sources: [(path: String, text: String)]) throws -> Set<String> {
        let regex = try NSRegularExpression(pattern: pattern)
        return Set(sources.filter { regex.firstMatch(in: $0.text, range: NSRange(location: 0, length: ($0.text as NSString).length)) != nil }.map(\.path))
    }

    @Test func everyLibpqCallIsInPostgresConnection() throws {
        let all = try Self.sources()
        #expect(all.count > 100, "found only \(all.count) sources")
        #expect(try Self.files(matching: #"\bPQ[a-zA-Z]+\("#, in: all) == ["Sources/TapwireStore/PostgresConnection.swift"])
    }

    @Test func everyLibmicrohttpdCallIsInHTTPServer() throws {
        #expect(try Self.files(matching: #"\bMHD_[a-z_]+\("#, in: try Self.sources()) == ["Sources/TapwireServer/HTTP/HTTPServer.swift"])
    }

    /// Anywhere in Sources, tools included: no Swift interpolation inside a SQL literal, so values
    /// reach queries only as parameters (or COPY binary), and identifiers only through a statement
    /// the database built (`runBuiltStatement`).
    @Test func noSQLLiteralIsInterpolated() throws {
        let all = try Self.sources()
        let literal = try NSRegularExpression(pattern: #"(?:\.query\(|copyIn\(|\bSQL\()\s*"([^"]*)""#)
        var checked = 0
        for source in all {
            let ns = source.text as NSString
            for match in literal.matches(in: source.text, range: NSRange(location: 0, length: ns.length)) {
                checked += 1
                let text = ns.substring(with: match.range(at: 1))
                #expect(!text.contains("\\("), "\(source.path): interpolated SQL: \(text)")
            }
        }
        #expect(checked >= 5, "found only \(checked) SQL literals")
    }

    /// The types declared at the top level of a Swift file (struct, enum, class, actor, protocol),
    /// except those private to it: `(name, line)`.
    static func topLevelTypes(in text: String) throws -> [(name: String, line: Int)] {
        let declaration = try NSRegularExpression(pattern: #"^(?:@\w+(?:\([^)]*\))?\s+)*((?:(?:public|package|internal|open|private|fileprivate|final|indirect)\s+)*)(?:struct|enum|class|actor|protocol)\s+([A-Za-z_][A-Za-z0-9_]*)"#)
        var out: [(String, Int)] = []
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let ns = String(line) as NSString
            guard let match = declaration.firstMatch(in: String(line), range: NSRange(location: 0, length: ns.length)) else { continue }
            let modifiers = ns.substring(with: match.range(at: 1))
            if modifiers.contains("private") { continue }
            out.append((ns.substring(with: match.range(at: 2)), index + 1))
        }
        return out
    }

    /// A type is found by its name: every type declared at the top level of a file under Sources/
    /// (other than one private to its file) is in the file named after it (`StagedBatch` in
    /// `StagedBatch.swift`). Extensions may live in files of their own (`MismatchDetector+EventRules.swift`).
    @Test func everyTypeIsInTheFileNamedAfterIt() throws {
        var misplaced: [String] = []
        var checked = 0
        for source in try Self.sources() {
            let file = ((source.path as NSString).lastPathComponent as NSString).deletingPathExtension
            for type in try Self.topLevelTypes(in: source.text) {
                checked += 1
                if type.name != file { misplaced.append("\(source.path):\(type.line) \(type.name)") }
            }
        }
        #expect(checked > 300, "found only \(checked) types")
        #expect(misplaced.isEmpty, "types outside the file named after them: \(misplaced)")
    }

    @Test func theTypeCheckSeesPublicInternalAndAttributedTypesButNotPrivateOnes() throws {
        let text = """
        public struct A {}
        @usableFromInline final class B: Sendable {}
        enum C { struct Nested {} }
        private struct D {}
        fileprivate enum E {}
        extension F {}
        """
        #expect(try Self.topLevelTypes(in: text).map(\.name) == ["A", "B", "C"])
    }

    /// `query("…")` and `SQL("…", name:)` with a literal: a statement written in Swift instead of `sql/`.
    @Test func theProductWritesNoSQLInline() throws {
        let product = try Self.sources().filter { source in
            Self.productModules.contains { source.path.hasPrefix("Sources/\($0)/") }
        }
        #expect(product.count > 50)
        let inline = try Self.files(matching: #"\.query\(\s*"|\bSQL\(\s*""#, in: product)
        // The choke point itself holds BEGIN, COMMIT and ROLLBACK, the protocol of a transaction.
        #expect(inline == ["Sources/TapwireStore/PostgresConnection.swift"], "inline SQL in \(inline.sorted())")
    }
}
