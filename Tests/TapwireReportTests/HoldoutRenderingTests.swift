import Foundation
import TapwireStatistics
import Testing
import TapwireCore
@testable import TapwireReport
import TapwireStore
import TapwireTestSupport

/// The holdouts where a person looks (docs/holdouts.md): the CSV's holdout rows and the HTML
/// chart, from a report built without a database. The browser test draws the chart in Chromium.
@Suite struct HoldoutRenderingTests {
    typealias Arm = HoldoutCounts.Arm

    /// Three campaigns: spring (shown, every converted device with a value of 8 to 15: the value
    /// interval shown), winter (shown, a few large purchases among 1,000 held-out devices: the value
    /// interval withheld), and one whose logged split is 70/30 where 50/50 was stated, named as a
    /// spreadsheet formula, so withheld.
    static func report(holdouts: Bool = true) -> EngagementReport {
        var data = ReportData(days: ["2026-11-02"], counts: [
            ReportCountRow(group: "", day: "2026-11-02", category: "message", hasMedia: true, delivered: 400, opens: 40),
            ReportCountRow(group: "", day: "2026-11-02", category: "message", hasMedia: false, delivered: 400, opens: 80),
        ], actions: [], histograms: [], grouped: false)
        if holdouts {
            func mild(_ k: Int) -> [Decimal] { (0..<k).map { [8, 10, 12, 15][$0 % 4] } }
            let values: [Decimal] = [5, 10, 120, 3]
            data.holdouts = [
                counts("spring", share: 0.1, [(HoldoutEffectTests.arm(4_500, 250, values: mild(250)), HoldoutEffectTests.arm(500, 20, values: mild(20))),
                                              (HoldoutEffectTests.arm(4_500, 290, values: mild(290)), HoldoutEffectTests.arm(500, 30, values: mild(30)))]),
                counts("winter", share: 0.2, [(HoldoutEffectTests.arm(3_200, 400, values: values + values), HoldoutEffectTests.arm(800, 60, values: values))]),
                counts("=HYPERLINK(\"x\")", share: 0.5, [(HoldoutEffectTests.arm(700, 70), HoldoutEffectTests.arm(300, 30))]),
            ]
        }
        let scope = ReportScope(appId: 1, from: Timestamp(iso8601: "2026-11-02")!, to: Timestamp(iso8601: "2026-11-03")!)
        return EngagementReportBuilder().build(app: "sample", scope: scope, data: data, manifests: [:],
                                               generatedAt: Timestamp(iso8601: "2026-11-03T08:00:00Z")!)
    }

    static func counts(_ campaign: String, share: Double, _ days: [(Arm, Arm)]) -> HoldoutCounts {
        var counts = HoldoutEffectTests.counts(days.map { (treated: $0.0, heldOut: $0.1) }, share: share)
        counts.campaign = campaign
        return counts
    }

    @Test func csvHasARowPerCampaignWithEveryFigureAndOneOverThem() throws {
        let report = Self.report()
        let spring = try #require(report.holdouts.first { $0.campaign == "spring" })
        let broken = try #require(report.holdouts.first { $0.campaign.hasPrefix("=") })
        let combined = try #require(report.holdoutsCombined)
        #expect(spring.withheld == nil && spring.valuePerDevice?.ci95 != nil && spring.valuePerDevice?.withheld == nil && spring.anytimeValid != nil)
        let winter = try #require(report.holdouts.first { $0.campaign == "winter" })
        #expect(winter.withheld == nil && winter.valuePerDevice?.ci95 == nil && winter.valuePerDevice?.withheld != nil)
        #expect(broken.srm.mismatch && broken.withheld != nil && combined.campaigns == ["spring", "winter"])

        let csv = CSVReportRenderer().render(report)
        let rows = FormulaInjection.cells(csv)
        let header = try #require(rows.first)
        #expect(header == CSVReportRenderer.header)
        #expect(rows.allSatisfy { $0.count == header.count }, "every row has every column")
        // The category rows are what they were without holdouts, their holdout cells empty.
        let plain = FormulaInjection.cells(CSVReportRenderer().render(Self.report(holdouts: false)))
        let categoryRows = rows.filter { !$0[0].hasPrefix("holdout") }
        #expect(categoryRows.count == plain.count && categoryRows.count == 1 + 2)
        for (row, before) in zip(categoryRows, plain) {
            #expect(Array(row.prefix(before.count - CSVReportRenderer.holdoutHeader.count)) == Array(before.prefix(before.count - CSVReportRenderer.holdoutHeader.count)))
            #expect(row.suffix(CSVReportRenderer.holdoutHeader.count).allSatisfy(\.isEmpty) || row == header)
        }
        #expect(CSVReportRenderer.header.prefix(CSVReportRenderer.engagementHeader.count).last == "conversion_anytime_ci_high_pp")

        func cells(_ dimension: String, _ value: String) throws -> [String: String] {
            let row = try #require(rows.first { $0[0] == dimension && $0[1] == value }, "no \(dimension) row for \(value)")
            #expect(row[2].isEmpty && row[3].isEmpty, "a holdout row leaves the category columns empty")
            return Dictionary(uniqueKeysWithValues: zip(header, row))
        }
        func number(_ cell: String?) -> Double? { cell.flatMap { Double($0) } }
        let s = try cells("holdout", "spring")
        #expect(s["holdout_window"] == "7 days" && s["holdout_first_assignment_kept"] == "true")
        #expect(s["holdout_treated_devices"] == "9000" && s["holdout_treated_converted"] == "540" && s["holdout_held_out_devices"] == "1000"
                && s["holdout_held_out_converted"] == "50")
        let expected: [(String, Double?)] = [
            ("holdout_treated_rate", 0.06), ("holdout_held_out_rate", 0.05), ("holdout_treated_ci_low", spring.treated.ci95?.lower),
            ("holdout_held_out_ci_high", spring.heldOut.ci95?.upper), ("holdout_difference_pp", 1), ("holdout_relative_lift", 0.2),
            ("holdout_difference_ci_low_pp", spring.ci95.map { $0.lower * 100 }), ("holdout_difference_ci_high_pp", spring.ci95.map { $0.upper * 100 }),
            ("holdout_anytime_ci_low_pp", spring.anytimeValid.map { $0.ci95.lower * 100 }),
            ("holdout_anytime_ci_high_pp", spring.anytimeValid.map { $0.ci95.upper * 100 }),
            ("holdout_value_treated", spring.valuePerDevice?.treated), ("holdout_value_held_out", spring.valuePerDevice?.heldOut),
            ("holdout_value_difference", spring.valuePerDevice?.difference), ("holdout_value_ci_low", spring.valuePerDevice?.ci95?.lower),
            ("holdout_value_ci_high", spring.valuePerDevice?.ci95?.upper), ("holdout_srm_expected_share", 0.1), ("holdout_srm_observed_share", 0.1),
            ("holdout_srm_p_value", spring.srm.pValue), ("holdout_srm_sequential_p_value", spring.srm.sequentialPValue),
        ]
        for (column, value) in expected {
            let cell = try #require(number(s[column]), "\(column) is \(s[column] ?? "missing")")
            #expect(abs(cell - (value ?? .nan)) < 1e-6, "\(column): \(cell) against \(value ?? .nan)")
        }
        #expect(s["holdout_decided_on"] == (spring.anytimeValid?.decidedOn ?? "") && s["holdout_withheld"] == "" && s["holdout_srm_mismatch"] == "false")
        #expect(s["holdout_combined_campaigns"] == "" && s["holdout_combined_p_value"] == "" && s["holdout_value_withheld"] == "")
        // The value interval withheld: its reason, the means kept.
        let w = try cells("holdout", "winter")
        #expect(w["holdout_value_withheld"] == winter.valuePerDevice?.withheld && w["holdout_withheld"] == "")
        #expect(w["holdout_value_ci_low"] == "" && w["holdout_value_ci_high"] == "" && number(w["holdout_value_held_out"]) != nil)

        // Withheld: the reason and the split, no estimate; the formula-like name is text.
        let b = try cells("holdout", "'=HYPERLINK(\"x\")")
        #expect(b["holdout_withheld"] == broken.withheld && b["holdout_srm_mismatch"] == "true" && b["holdout_treated_devices"] == "700")
        for column in ["holdout_difference_pp", "holdout_anytime_ci_low_pp", "holdout_decided_on", "holdout_value_treated"] {
            #expect(b[column] == "", "\(column) is shown on a withheld campaign")
        }
        #expect(FormulaInjection.liveCells(csv) == [])

        let c = try cells("holdout_combined", "")
        #expect(c["holdout_combined_campaigns"] == "spring;winter" && abs((number(c["holdout_combined_p_value"]) ?? -1) - combined.pValue) < 1e-12)
        #expect(abs((number(c["holdout_difference_pp"]) ?? -1) - combined.difference * 100) < 1e-6)
        #expect(abs((number(c["holdout_difference_ci_low_pp"]) ?? -1) - combined.ci95.lower * 100) < 1e-6)
        #expect(c["holdout_treated_devices"] == "" && c["holdout_srm_mismatch"] == "")
    }

    /// Each look is cumulative, its band is the anytime-valid interval of that day, and the last
    /// look's band is the one the report states.
    @Test func looksAreCumulativeWithTheirBands() throws {
        let days = (0..<6).map { d in (treated: HoldoutEffectTests.arm(900, 60 + d), heldOut: HoldoutEffectTests.arm(100, 4)) }
        let effect = HoldoutEffect(HoldoutEffectTests.counts(days))
        #expect(effect.looks.map(\.treated.assigned) == [900, 1_800, 2_700, 3_600, 4_500, 5_400])
        #expect(effect.looks.map(\.heldOut.converted) == [4, 8, 12, 16, 20, 24])
        #expect(effect.looks.last?.anytimeValid == effect.anytimeValid?.ci95)
        let firstExcluding = effect.looks.first { $0.anytimeValid.map { !$0.contains(0) } ?? false }?.day
        #expect(firstExcluding == effect.anytimeValid?.decidedOn)
        // Each look's band is the same computation on the counts up to it.
        for k in 1...days.count {
            let upTo = HoldoutEffect(HoldoutEffectTests.counts(Array(days.prefix(k))))
            #expect(effect.looks[k - 1].anytimeValid == upTo.anytimeValid?.ci95, "look \(k)")
            #expect(abs((effect.looks[k - 1].difference ?? -1) - (upTo.difference ?? -2)) < 1e-15)
        }
        // Withheld: the looks keep the rates, without a band.
        let broken = HoldoutEffect(HoldoutEffectTests.counts([(HoldoutEffectTests.arm(700, 70), HoldoutEffectTests.arm(300, 30))], share: 0.5))
        #expect(broken.withheld != nil && broken.looks.count == 1 && broken.looks[0].treatedRate == 0.1 && broken.looks[0].anytimeValid == nil)
    }

    /// Every format says why a value interval is withheld: the table's, Markdown's and HTML's
    /// sentence, the JSON's `valuePerDevice.withheld` (the CSV's column is checked above).
    @Test func everyFormatSaysWhyTheValueIntervalIsWithheld() throws {
        let report = Self.report()
        let winter = try #require(report.holdouts.first { $0.campaign == "winter" })
        let reason = try #require(winter.valuePerDevice?.withheld)
        let rendered = JSONReportRenderer().render(report)
        try SchemaCheck.validate(rendered)
        let json = try JSONParser().parse(Array(rendered.utf8))
        let holdout = try #require(json["holdouts"]?.arrayValue?.first { $0["campaign"]?.stringValue == "winter" })
        #expect(holdout["valuePerDevice"]?["withheld"]?.stringValue == reason && holdout["valuePerDevice"]?["ci95"] == .null)
        #expect(holdout["valuePerDevice"]?["devicesNeeded"]?.numberValue?.integer.map { Int($0) } == winter.valuePerDevice?.devicesNeeded)
        let sentence = "(interval withheld: \(reason))."
        let table = TableReportRenderer().render(report).split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(table.contains(sentence.split(whereSeparator: \.isWhitespace).joined(separator: " ")), "the table's sentence")
        #expect(Fmt.holdoutLines(report).contains { $0.contains(sentence) })
        #expect(MarkdownReportRenderer().render(report).contains(MarkdownReportRenderer().escape(sentence)))
        #expect(HTMLReportRenderer().render(report).contains(HTML.escape(sentence)))
        let spring = try #require(json["holdouts"]?.arrayValue?.first { $0["campaign"]?.stringValue == "spring" })
        #expect(spring["valuePerDevice"]?["withheld"] == .null && spring["valuePerDevice"]?["ci95"]?["lower"] != nil)
    }

    /// The JSON's daily looks are the chart's: each look's day, counts, rates, difference and band
    /// in the JSON, formatted as the chart formats them, are the titles of the chart's points.
    @Test func theJSONLooksAreWhatTheChartDraws() throws {
        let report = Self.report()
        let rendered = JSONReportRenderer().render(report)
        try SchemaCheck.validate(rendered)
        let json = try JSONParser().parse(Array(rendered.utf8))
        let html = HTMLReportRenderer().render(report)
        for effect in report.holdouts {
            let holdout = try #require(json["holdouts"]?.arrayValue?.first { $0["campaign"]?.stringValue == effect.campaign })
            let looks = try #require(holdout["looks"]?.arrayValue)
            #expect(looks.count == effect.looks.count && !looks.isEmpty)
            let chart = HoldoutChart(effect: effect).svg
            #expect(html.contains(chart))
            for look in looks {
                let day = try #require(look["day"]?.stringValue)
                for (name, key) in [("treated", "treated"), ("held out", "heldOut")] {
                    let arm = try #require(look[key])
                    let rate = try #require(arm["rate"]?.numberValue?.double), converted = try #require(arm["converted"]?.numberValue?.integer.map { Int($0) })
                    let devices = try #require(arm["devices"]?.numberValue?.integer.map { Int($0) })
                    #expect(abs(rate - Double(converted) / Double(devices)) < 1e-6)
                    let title = "\(day): \(name) \(Fmt.percent(rate, digits: 2)), \(Fmt.count(converted)) of \(Fmt.count(devices)) converted"
                    #expect(chart.contains("<title>\(HTML.escape(title))</title>"), "\(effect.campaign): no point \(title)")
                }
                if effect.withheld == nil {
                    let difference = try #require(look["difference"]?.numberValue?.double)
                    var band: ConfidenceInterval?
                    if let lower = look["anytimeValid"]?["lower"]?.numberValue?.double, let upper = look["anytimeValid"]?["upper"]?.numberValue?.double {
                        band = ConfidenceInterval(lower: lower, upper: upper)
                    }
                    let title = "\(day): difference \(Fmt.points(difference * 100)), anytime-valid \(Fmt.interval(band, signed: true))"
                    #expect(chart.contains("<title>\(HTML.escape(title))</title>"), "\(effect.campaign): no point \(title)")
                } else {
                    #expect(look["anytimeValid"] == .null)
                }
            }
            #expect(looks.last?["anytimeValid"]?["lower"]?.numberValue?.double == holdout["anytimeValid"]?["ci95"]?["lower"]?.numberValue?.double)
        }
    }

    /// The chart: an SVG per campaign in the report's holdout section, with both arms' lines,
    /// the band, zero and the day decided, every coordinate inside the drawing, names escaped;
    /// a withheld campaign says why instead of a band.
    @Test func htmlDrawsAChartPerCampaign() throws {
        var report = Self.report()
        report.holdouts[0].campaign = "spring <b>&"
        let html = HTMLReportRenderer().render(report)
        #expect(html.components(separatedBy: "class=\"chart chart-holdout\"").count - 1 == 3)
        #expect(html.contains("spring &lt;b&gt;&amp;") && !html.contains("spring <b>"))
        let spring = HoldoutChart(effect: report.holdouts[0]).svg
        for piece in ["<polyline class=\"treated\"", "<polyline class=\"held-out\"", "<polygon class=\"band\"",
                      "<polyline class=\"difference\"", "<line class=\"zero\""] {
            #expect(spring.contains(piece), "no \(piece)")
        }
        if let decided = report.holdouts[0].anytimeValid?.decidedOn {
            #expect(spring.contains("<line class=\"decided\"") && spring.contains("decided \(decided)"))
        }
        // Every x and y inside the 760-wide drawing and its height.
        let height = try #require(spring.firstMatch(of: /viewBox="0 0 760.0 ([0-9.]+)"/).flatMap { Double($0.1) })
        for match in spring.matches(of: /(?:points="|d="M)([^"]+)"/) {
            let numbers = match.1.split(whereSeparator: { " ,MVH".contains($0) }).compactMap { Double($0) }
            #expect(!numbers.isEmpty)
            #expect(numbers.allSatisfy { $0 >= 0 && $0 <= 760 }, "\(match.1)")
        }
        for match in spring.matches(of: /cy="([0-9.-]+)"/) {
            let y = try #require(Double(match.1))
            #expect(y >= 0 && y <= height)
        }
        let broken = HoldoutChart(effect: report.holdouts[2]).svg
        #expect(broken.contains("<polyline class=\"treated\"") == false && broken.contains("class=\"treated-dot\""), "one day: dots, no line")
        #expect(!broken.contains("<polygon class=\"band\"") && !broken.contains("band-edge") && broken.contains("Difference and anytime-valid band withheld:"))
        let reason = TableReportRenderer().wrap(try #require(report.holdouts[2].withheld), 95)
        #expect(reason.count > 1 && reason.allSatisfy { broken.contains(">" + HTML.escape($0) + "</text>") }, "the reason, whole, on its lines")
        // No holdouts, no chart and no chart CSS.
        let plain = HTMLReportRenderer().render(Self.report(holdouts: false))
        #expect(!plain.contains("chart-holdout") && !plain.contains("svg .band{"))
    }
}
