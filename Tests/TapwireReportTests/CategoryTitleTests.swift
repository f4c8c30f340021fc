import Testing
import TapwireCore
import TapwireStatistics
@testable import TapwireReport

/// `EngagementReportBuilder.titles`: every category's title in one pass equals the search it
/// replaces, each category on its own: the newest version (as `String` orders them) whose manifest's
/// first entry of the category has a title.
@Suite struct CategoryTitleTests {
    static func searched(_ category: String, _ manifests: [String: Manifest]) -> String? {
        for version in manifests.keys.sorted(by: >) {
            if let title = manifests[version]?.category(category)?.title { return title }
        }
        return nil
    }

    @Test func theNewestTitleWins() {
        let manifests = [
            "1.0": Manifest(appVersion: "1.0", categories: [ManifestCategory(identifier: "a", title: "old A"),
                                                             ManifestCategory(identifier: "b", title: "old B")]),
            "2.0": Manifest(appVersion: "2.0", categories: [ManifestCategory(identifier: "a", title: "new A"),
                                                             ManifestCategory(identifier: "b")]),
            // "10.0" sorts before "2.0" as a String, so it is not the newest.
            "10.0": Manifest(appVersion: "10.0", categories: [ManifestCategory(identifier: "c", title: "C")]),
        ]
        #expect(EngagementReportBuilder.titles(manifests) == ["a": "new A", "b": "old B", "c": "C"])
    }

    @Test func randomManifestsGiveTheSearchedTitles() {
        var random = SeededGenerator(seed: 7)
        for _ in 0..<300 {
            var manifests: [String: Manifest] = [:]
            for _ in 0..<Int.random(in: 0...8, using: &random) {
                let version = "\(Int.random(in: 1...12, using: &random)).\(Int.random(in: 0...3, using: &random))"
                // Duplicate identifiers within one manifest: only the first entry counts.
                let categories = (0..<Int.random(in: 0...6, using: &random)).map { _ in
                    ManifestCategory(identifier: "c\(Int.random(in: 0...4, using: &random))",
                                     title: Bool.random(using: &random) ? "t\(Int.random(in: 0...99, using: &random))" : nil)
                }
                manifests[version] = Manifest(appVersion: version, categories: categories)
            }
            let titles = EngagementReportBuilder.titles(manifests)
            for category in (0...4).map({ "c\($0)" }) {
                #expect(titles[Bytewise(category)] == Self.searched(category, manifests))
            }
        }
    }
}
