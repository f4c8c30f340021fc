import Testing
import TapwireStatistics
@testable import TapwireReport

/// `PostgresReportReader.dismissPairs`: the version-by-version grid it finds without hashing each
/// pair gives what hashing every pair gives (`hashedDismissPairs`): the same categories, versions
/// and keys, in the same order, for grids listed a version at a time (as the report lists them),
/// grids in other orders, grids with a pair missing, a pair twice, a category twice in a version,
/// a version in two places, and arbitrary lists.
@Suite struct DismissPairsTests {
    typealias Pairs = [(category: String, appVersion: String)]

    static func same(_ pairs: Pairs) -> Bool {
        let fast = PostgresReportReader.dismissPairs(pairs), hashed = PostgresReportReader.hashedDismissPairs(pairs)
        return fast.categories == hashed.categories && fast.versions == hashed.versions && fast.keys == hashed.keys
    }

    @Test func aReportsGridIsFoundWithoutHashingAndEqualsTheHashedOne() {
        let categories = (0..<30).map { "category_\($0)" }, versions = (0..<40).map { "6.\($0 / 10).\($0 % 10)" }
        let pairs: Pairs = versions.flatMap { v in categories.map { (category: $0, appVersion: v) } }
        let grid = PostgresReportReader.versionByVersionGrid(pairs)
        #expect(grid?.categories == categories && grid?.versions == versions)
        #expect(Self.same(pairs))
        #expect(PostgresReportReader.dismissPairs(pairs).keys.isEmpty)
    }

    @Test func otherListsFallBackToHashingAndGiveTheSameAnswer() {
        let grid: Pairs = [("a", "1"), ("b", "1"), ("a", "2"), ("b", "2")]
        let cases: [Pairs] = [
            [],
            grid,
            [("a", "1"), ("b", "1"), ("b", "2"), ("a", "2")],  // another order in a version: still a grid
            [("a", "1"), ("a", "2"), ("b", "1"), ("b", "2")],  // category by category: still a grid
            [("a", "1"), ("b", "1"), ("a", "2")],  // a pair missing
            grid + [("a", "2")],  // a pair twice
            [("a", "1"), ("a", "1"), ("a", "2"), ("a", "2")],  // a category twice in each version
            [("a", "1"), ("b", "1"), ("a", "2"), ("b", "2"), ("a", "1"), ("b", "1")],  // a version in two places
            [("a", "1"), ("b", "2")],
        ]
        for pairs in cases { #expect(Self.same(pairs), "\(pairs)") }
        #expect(PostgresReportReader.versionByVersionGrid([("a", "1"), ("a", "1"), ("a", "2"), ("a", "2")]) == nil)
        #expect(PostgresReportReader.versionByVersionGrid([("a", "1"), ("b", "1"), ("a", "2"), ("b", "2"), ("a", "1"), ("b", "1")]) == nil)
    }

    @Test func randomListsGiveTheHashedAnswer() {
        var random = SeededGenerator(seed: 33)
        var grids = 0
        for _ in 0..<2_000 {
            let categories = (0..<Int.random(in: 1...4, using: &random)).map { _ in "c\(Int.random(in: 0...4, using: &random))" }
            let versions = (0..<Int.random(in: 1...4, using: &random)).map { _ in "\(Int.random(in: 0...4, using: &random))" }
            var pairs: Pairs = versions.flatMap { v in categories.map { (category: $0, appVersion: v) } }
            switch Int.random(in: 0...3, using: &random) {
            case 0: break
            case 1: pairs.shuffle(using: &random)
            case 2: if !pairs.isEmpty { pairs.remove(at: Int.random(in: 0..<pairs.count, using: &random)) }
            default: pairs.append((category: "c\(Int.random(in: 0...4, using: &random))", appVersion: "\(Int.random(in: 0...4, using: &random))"))
            }
            if PostgresReportReader.versionByVersionGrid(pairs) != nil { grids += 1 }
            #expect(Self.same(pairs), "\(pairs)")
        }
        #expect(grids > 100, "the random lists hold grids listed a version at a time")
    }
}
