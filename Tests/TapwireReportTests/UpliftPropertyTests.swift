import Foundation
import TapwireStatistics
import Testing
import TapwireCore
@testable import TapwireReport
import TapwireStore
import TapwireStatisticsOracle

/// The shapes a category takes in real telemetry, each of which once could blank or skew the
/// figures of the others.
private enum CategoryShape: CaseIterable {
    /// Rich and text-only deliveries in random strata.
    case normal
    /// Posted by the backend as `sent` only, with opens that have no delivery.
    case sentOnly
    /// Some cells have more engaged than delivered (responses without their deliveries).
    case notMeaningful
    case richOnly
    case textOnlyOnly
    /// Rows, but nothing delivered, sent or engaged (dismissals only).
    case nothing
}

/// Random report data, as the rollups hand it to the builder: count rows and stratum rows drawn
/// from the same cells, so they agree as the store's do.
private struct RandomReportData {
    var data: ReportData
    var groupBy: ReportDimension?
    var minimum: MinimumSample
    /// The rows as the oracle reads them: [group, category, campaign, version, platform, UTC day, rich, delivered, engaged].
    var oracleRows: [[Any]]

    static let day = "2026-12-01"

    init(_ rng: inout SeededGenerator) {
        let campaigns = Array(["", "spring", "sale", "news"].prefix(Int.random(in: 1...4, using: &rng)))
        let versions = Array(["1.0", "1.1", "2.0"].prefix(Int.random(in: 1...3, using: &rng)))
        let platforms = Array(["iOS", "iPadOS"].prefix(Int.random(in: 1...2, using: &rng)))
        groupBy = [nil, nil, .campaign, .platform, .appVersion].randomElement(using: &rng)!
        minimum = MinimumSample(perSide: [100, 20, 1].randomElement(using: &rng)!, expectedCount: [5, 1].randomElement(using: &rng)!)
        var counts: [ReportCountRow] = []
        var rows: [[Any]] = []
        let shapes = (0..<Int.random(in: 1...5, using: &rng)).map { _ in CategoryShape.allCases.randomElement(using: &rng)! }
        for (c, shape) in shapes.enumerated() {
            let category = "c\(c)"
            let base = Double.random(in: 0.01...0.6, using: &rng), lift = Double.random(in: -0.1...0.1, using: &rng)
            // Sparse strata (a few deliveries) as often as large ones: Sato's variance must hold for both.
            let scale = [5, 40, 400].randomElement(using: &rng)!
            for campaign in campaigns { for version in versions { for platform in platforms { for rich in [true, false] {
                guard Double.random(in: 0..<1, using: &rng) < 0.8 else { continue }
                var delivered = 0, sent = 0, engaged = 0, dismissals = 0
                switch shape {
                case .normal, .notMeaningful, .richOnly, .textOnlyOnly:
                    if (shape == .richOnly && !rich) || (shape == .textOnlyOnly && rich) { continue }
                    delivered = Int.random(in: 0...scale, using: &rng)
                    let rate = min(1, max(0, base + (rich ? lift : 0)))
                    engaged = (0..<delivered).reduce(0) { n, _ in n + (Double.random(in: 0..<1, using: &rng) < rate ? 1 : 0) }
                    if shape == .notMeaningful, Bool.random(using: &rng) { engaged = delivered + Int.random(in: 1...20, using: &rng) }
                case .sentOnly:
                    sent = Int.random(in: 1...scale, using: &rng)
                    engaged = Int.random(in: 0...max(1, sent / 4), using: &rng)
                case .nothing:
                    dismissals = Int.random(in: 0...3, using: &rng)
                }
                let opens = Int.random(in: 0...engaged, using: &rng)
                let group: String
                switch groupBy {
                case .campaign: group = campaign
                case .platform: group = platform
                case .appVersion: group = version
                default: group = ""
                }
                counts.append(ReportCountRow(group: group, appVersion: version, day: Self.day, category: category, campaign: campaign,
                                             platform: platform, hasMedia: rich, delivered: delivered, sent: sent, opens: opens,
                                             dismissals: dismissals, actions: engaged - opens))
                let day = ReportData.utcDay(Self.day)
                rows.append(["", category, campaign, version, platform, day, rich ? 1 : 0, delivered, engaged])
                if groupBy != nil { rows.append(["g:" + group, category, campaign, version, platform, day, rich ? 1 : 0, delivered, engaged]) }
            } } } }
        }
        data = ReportData(days: [Self.day], counts: counts, grouped: groupBy != nil)
        oracleRows = rows
    }
}

@Suite("Rich vs text-only: every figure against an independent recomputation")
struct UpliftPropertyTests {
    static let from = Timestamp(iso8601: "2026-12-01T00:00:00Z")!

    /// 600 random reports mixing every category shape, with and without --by: each category's,
    /// each overall's and each --by section's pooled and adjusted figures equal
    /// Tests/Statistics/report_uplift.py's, which recomputes them in exact fractions from the
    /// rule in docs/reports.md.
    @Test func everyFigureEqualsTheOracle() throws {
        var rng = SeededGenerator(seed: 20_261_204)
        var cases: [(report: EngagementReport, input: RandomReportData)] = []
        for _ in 0..<600 {
            let input = RandomReportData(&rng)
            let scope = ReportScope(appId: 1, from: Self.from, to: Self.from.adding(microseconds: 86_400_000_000), groupBy: input.groupBy)
            let report = EngagementReportBuilder(minimumSample: input.minimum)
                .build(app: "shop", scope: scope, data: input.data, manifests: [:], generatedAt: Self.from)
            cases.append((report, input))
        }
        let request: [[String: Any]] = cases.map {
            ["perSide": $0.input.minimum.perSide, "expectedCount": $0.input.minimum.expectedCount, "rows": $0.input.oracleRows]
        }
        let answers = try #require(try StatisticsOracle.run("report_uplift.py", input: JSONSerialization.data(withJSONObject: request))
                                   as? [[String: [String: Any]]])
        try #require(answers.count == cases.count)
        var compared = 0, adjustedShown = 0, overallShownBesideOddCategories = 0
        for ((report, _), answer) in zip(cases, answers) {
            var sections = [("", report.categories, report.overall)]
            for group in report.groups { sections.append(("g:" + group.value, group.categories, group.overall)) }
            for (group, categories, overall) in sections {
                for row in categories + [overall] {
                    let key = group + "\u{1}" + (row.category ?? "*")
                    let expected = try #require(answer[key], "the oracle has no \(key)")
                    try Self.expectEqual(row.uplift, expected, key)
                    compared += 1
                    if row.uplift.adjusted.sufficient { adjustedShown += 1 }
                }
                // One odd category never blanks the overall, nor mixes a sent base into it.
                #expect(overall.engagementNotMeaningful == nil, "the overall of \(group) is not meaningful")
                #expect(overall.engaged <= overall.baseCount || overall.baseCount == 0)
                if overall.base == .delivered { #expect(overall.sent == categories.filter { $0.base == .delivered && $0.engagementNotMeaningful == nil }.reduce(0) { $0 + $1.sent }) }
                if overall.uplift.adjusted.sufficient, !overall.excludedCategories.isEmpty { overallShownBesideOddCategories += 1 }
            }
        }
        #expect(compared > 2_000)
        #expect(adjustedShown > 300, "too few figures shown to test: \(adjustedShown)")
        #expect(overallShownBesideOddCategories > 30, "too few overalls beside odd categories: \(overallShownBesideOddCategories)")
    }

    static func expectEqual(_ u: RichUplift, _ e: [String: Any], _ key: String) throws {
        func int(_ name: String) -> Int? { (e[name] as? NSNumber)?.intValue }
        #expect(u.rich.delivered == int("richDelivered") && u.rich.engaged == int("richEngaged"), "\(key): rich side")
        #expect(u.textOnly.delivered == int("textDelivered") && u.textOnly.engaged == int("textEngaged"), "\(key): text-only side")
        #expect(u.notMeaningfulDelivered == int("notMeaningfulDelivered"), "\(key): not meaningful")
        #expect(u.engagedWithoutDeliveries == int("engagedWithoutDeliveries"), "\(key): without deliveries")
        #expect(u.adjusted.strata == int("strata"), "\(key): strata \(u.adjusted.strata)")
        #expect(u.adjusted.excludedDelivered == int("excludedDelivered"), "\(key): excluded")
        let sufficient = (e["sufficient"] as? Bool) ?? false
        #expect(u.adjusted.sufficient == sufficient, "\(key): sufficient \(u.adjusted.sufficient), reason \(u.adjusted.reason ?? "-")")
        guard sufficient, let difference = u.adjusted.difference, let ci = u.adjusted.ci95, let p = u.adjusted.pValue else { return }
        #expect(StatisticsOracle.close(difference, e["difference"], relative: 1e-9), "\(key): difference \(difference) vs \(e["difference"] ?? "-")")
        #expect(StatisticsOracle.close(ci.lower, e["lower"], relative: 1e-9) && StatisticsOracle.close(ci.upper, e["upper"], relative: 1e-9),
                "\(key): interval")
        #expect(StatisticsOracle.close(p, e["pValue"], relative: 1e-7), "\(key): p \(p) vs \(e["pValue"] ?? "-")")
    }
}
