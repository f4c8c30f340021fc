import Foundation
import Testing

/// The map stays true: every file docs/architecture.md names exists, and every link between the
/// documents leads somewhere.
@Suite("Documentation")
struct DocumentationTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func read(_ path: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
    }

    static func exists(_ path: String) -> Bool {
        FileManager.default.fileExists(atPath: root.appendingPathComponent(path).path)
    }

    /// Paths in backticks that look like files of the tree (`TapwireStore/EventWriter.swift`,
    /// `sql/queries/copy_events.sql`, `Sources/TapwireRollupOracle`), with any "(function)" after them dropped.
    static func namedPaths(in text: String) throws -> [String] {
        let pattern = try NSRegularExpression(pattern: "`((?:Sources/|Tests/|sql/|scripts/|dashboards/|docs/|schemas/|Plugins/|deploy/)?[A-Za-z][A-Za-z0-9_-]*/[A-Za-z0-9_./+-]*[A-Za-z0-9_])`")
        let ns = text as NSString
        return pattern.matches(in: text, range: NSRange(location: 0, length: ns.length)).map { ns.substring(with: $0.range(at: 1)) }
    }

    @Test func everyPathTheArchitectureNamesExists() throws {
        let text = try Self.read("docs/architecture.md")
        let paths = try Self.namedPaths(in: text)
        #expect(paths.count > 100, "the pattern found only \(paths.count) paths")
        var missing: [String] = []
        for path in Set(paths).sorted() {
            // Module-relative paths (`TapwireStore/…`) live under Sources/.
            if !(Self.exists(path) || Self.exists("Sources/" + path)) { missing.append(path) }
        }
        #expect(missing.isEmpty, "docs/architecture.md names paths that do not exist: \(missing)")
        #expect(!Self.exists("Sources/tapwire/Database.swift") && !missing.contains("tapwire/Database.swift"))
    }

    @Test func theCheckFindsAMissingPath() throws {
        let paths = try Self.namedPaths(in: "see `TapwireStore/NoSuchFile.swift` and `sql/queries/ping.sql` (`x`)")
        #expect(paths == ["TapwireStore/NoSuchFile.swift", "sql/queries/ping.sql"])
        #expect(!Self.exists("Sources/TapwireStore/NoSuchFile.swift") && Self.exists("sql/queries/ping.sql"))
    }

    @Test func linksBetweenDocumentsLeadSomewhere() throws {
        let link = try NSRegularExpression(pattern: "\\]\\(([A-Za-z0-9_./-]+\\.md)(#[^)]*)?\\)")
        var broken: [String] = []
        for document in ["README.md"] + (try FileManager.default.contentsOfDirectory(atPath: Self.root.appendingPathComponent("docs").path))
            .filter { $0.hasSuffix(".md") }.map { "docs/" + $0 } {
            let text = try Self.read(document) as NSString
            let base = (document as NSString).deletingLastPathComponent
            for match in link.matches(in: text as String, range: NSRange(location: 0, length: text.length)) {
                let target = text.substring(with: match.range(at: 1))
                let path = base.isEmpty ? target : base + "/" + target
                if !Self.exists(path) { broken.append("\(document) → \(target)") }
            }
        }
        #expect(broken.isEmpty, "links to missing documents: \(broken)")
    }
}
