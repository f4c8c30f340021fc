import Foundation
import TapwireCore
import TapwireStatistics
import TapwireStore

/// Human formatting shared by the text renderers (table, Markdown, HTML), so every format
/// shows a number the same way.
enum Fmt {
    static let dash = "—"

    static func count(_ n: Int) -> String {
        let digits = String(n.magnitude)
        var out = ""
        for (i, c) in digits.enumerated() {
            if i > 0, (digits.count - i) % 3 == 0 { out.append(",") }
            out.append(c)
        }
        return (n < 0 ? "-" : "") + out
    }

    static func fixed(_ value: Double, _ digits: Int) -> String {
        let text = String(format: "%.\(digits)f", value)
        // "-0.0" reads as a negative difference; it is none.
        if text.hasPrefix("-"), text.dropFirst().allSatisfy({ $0 == "0" || $0 == "." }) { return String(text.dropFirst()) }
        return text
    }

    static func percent(_ rate: Double?, digits: Int = 1) -> String {
        guard let rate else { return dash }
        return fixed(rate * 100, digits) + "%"
    }

    static func interval(_ ci: ConfidenceInterval?, scale: Double = 100, signed: Bool = false) -> String {
        guard let ci else { return dash }
        func f(_ v: Double) -> String { (signed && v >= 0 ? "+" : "") + fixed(v * scale, 1) }
        return "[" + f(ci.lower) + ", " + f(ci.upper) + "]"
    }

    static func points(_ value: Double?) -> String {
        guard let value else { return dash }
        return (value >= 0 ? "+" : "") + fixed(value, 1) + " pp"
    }

    /// What a rate cell shows when engaged exceeds its base (never a share over 100%).
    static let notMeaningful = "invalid"
    static let confoundedMarker = "yes ⚠"
    /// Insufficient data, where a column is too narrow for the word.
    static let insufficient = "insuff."
    /// A value per delivered interval the sample-size rule withholds (`ConversionValueInterval`).
    static let withheld = "withheld"

    static func sideRate(_ side: SideEngagement) -> String { percent(side.rate) }

    static func target(_ d: UpliftDetection) -> String {
        points(d.target * 100) + (d.targetSource == .given ? "" : d.targetSource == .observed ? " obs" : " dflt")
    }

    /// The first UTC day the anytime-valid interval excluded zero, "not yet", or a dash when the
    /// adjusted difference is withheld.
    static func decidedOn(_ adjusted: AdjustedUplift) -> String {
        guard adjusted.anytime.ci95 != nil else { return dash }
        return adjusted.anytime.decidedOn ?? "not yet"
    }

    /// "already detectable", "≈ N more days at current volume", or why it cannot be said.
    static func whenKnown(_ d: UpliftDetection) -> String {
        guard let days = d.daysToDetect else {
            return d.minimumDetectableDifference == nil ? "not enough data to say" : "no deliveries in the range to project"
        }
        if days == 0 { return "already detectable" }
        let whole = days.rounded(.up)
        return whole > 36_500 ? "over 100 years at current volume" : "≈ \(count(Int(whole))) more day\(whole == 1 ? "" : "s") at current volume"
    }

    /// One line of explanation for a confounded comparison.
    static func confoundedExplanation(_ u: RichUplift) -> String {
        let pooled = points(u.differencePoints), adjusted = points(u.adjusted.difference.map { $0 * 100 })
        let how = (u.comparison.difference ?? 0) * (u.adjusted.difference ?? 0) < 0
            ? "points the other way from" : "lies outside the 95% interval of"
        return "pooled \(pooled) \(how) the adjusted \(adjusted): rich and text-only went out in different campaigns, app versions or platforms; act on the adjusted figure"
    }

    /// The lines under the adjusted table: each confounded row, each rate that is not meaningful,
    /// what the rich vs text-only figures left out, and the categories an overall leaves out.
    static func rowNotes(_ rows: [CategoryEngagement]) -> [String] {
        var lines: [String] = []
        for row in rows where row.uplift.confounded {
            lines.append("⚠ \(row.displayName): " + confoundedExplanation(row.uplift))
        }
        for row in rows {
            if let reason = row.engagementNotMeaningful { lines.append("\(notMeaningful): \(row.displayName), engagement: \(reason)") }
            let u = row.uplift
            if u.notMeaningfulDelivered > 0 {
                lines.append("\(row.displayName), rich vs text-only: \(count(u.notMeaningfulDelivered)) delivered left out, in cells "
                             + "(\(EngagementReportBuilder.strataDimensions)) with more engaged than delivered")
            }
            // A category without deliveries is said once: by its base (*) and, under the overall,
            // among the categories left out. Only engagement it does not explain gets a line.
            let explained = row.base == .sent ? row.engaged
                : row.excludedCategories.filter { $0.reason != .engagementNotMeaningful }.reduce(0) { $0 + $1.engaged }
            if u.engagedWithoutDeliveries > explained {
                lines.append("\(row.displayName), rich vs text-only: \(count(u.engagedWithoutDeliveries)) engaged left out, in cells "
                             + "with no delivered events")
            }
            if !row.excludedCategories.isEmpty {
                lines.append("\(row.displayName) leaves out " + row.excludedCategories.map(exclusion).joined(separator: "; "))
            }
        }
        return lines
    }

    /// "digest (no delivered events: its rate is over sent)".
    static func exclusion(_ e: OverallExclusion) -> String {
        let name = e.category.isEmpty ? "(no category)" : e.category
        switch e.reason {
        case .sentBase: return "\(name) (no delivered events: its rate is over sent)"
        case .engagementNotMeaningful: return "\(name) (more engaged than delivered)"
        case .noBase: return "\(name) (neither delivered nor sent events)"
        }
    }

    static func lift(_ value: Double?) -> String {
        guard let value else { return dash }
        return (value >= 0 ? "+" : "") + fixed(value * 100, 0) + "%"
    }

    static func pValue(_ p: Double?) -> String {
        guard let p else { return dash }
        if p < 0.001 { return "<0.001" }
        return fixed(p, 3)
    }

    static func seconds(_ s: Double?) -> String {
        guard let s else { return dash }
        if s < 1 { return "<1s" }
        if s < 60 { return fixed(s, 0) + "s" }
        if s < 3600 { return fixed(s / 60, 1) + "m" }
        if s < 86_400 { return fixed(s / 3600, 1) + "h" }
        return fixed(s / 86_400, 1) + "d"
    }

    static func dismiss(_ d: DismissStats) -> String {
        guard d.measurable else { return "n/m" }
        return percent(d.rate)
    }

    static func replyLengths(_ r: TextReplies) -> String {
        guard let p50 = r.p50Length, let p90 = r.p90Length else { return dash }
        return "\(p50)/\(p90)"
    }

    /// A value per delivered notification, in its currency's units (two decimals, four below 1).
    static func money(_ value: Double?) -> String {
        guard let value else { return dash }
        return fixed(value, abs(value) < 1 ? 4 : 2)
    }

    static func moneyInterval(_ ci: ConfidenceInterval?) -> String {
        guard let ci else { return dash }
        return "[" + money(ci.lower) + ", " + money(ci.upper) + "]"
    }

    /// What the conversion tables mean, and the windows they used.
    static func conversionNote(_ report: EngagementReport) -> String {
        let windows = report.attribution.map {
            "direct within \(duration($0.directSeconds)) of a tap, influenced within \(duration($0.influenceSeconds)) of a delivery"
        } ?? "the app's windows"
        return "Conversions: \(windows), else unattributed (docs/outcomes.md). Rate: notifications with a conversion over delivered "
            + "(Wilson 95%); value per delivered: the values over delivered (\(ConversionValueInterval.method), 95%). Rich vs "
            + "text-only on conversion is the engagement comparison with converted in place of engaged, over the same strata "
            + "(insuff.: insufficient data)." + valueWithheldNote(report)
            + (report.conversionsOmitted.map { " Not shown: " + $0 + "." } ?? "")
    }

    /// Why each value per delivered interval the tables mark withheld is not shown.
    static func valueWithheldNote(_ report: EngagementReport) -> String {
        let sections = report.groups.map { g in (g.categories + [g.overall]).map { ("\(g.dimension.rawValue) \(g.value), " + $0.displayName, $0) } }
        let rows = (report.categories + [report.overall]).map { ($0.displayName, $0) } + sections.flatMap { $0 }
        let reasons = rows.flatMap { name, c in
            c.conversions.compactMap { v in
                v.valuePerDeliveredWithheld.map { "\(name), \(ConversionLine(categoryName: "", isTotal: false, conversion: v).label): \($0)" }
            }
        }
        guard !reasons.isEmpty else { return "" }
        return " Value per delivered interval \(withheld) (shown only where delivered exceed 28 + 25·G1², G1 the values' skewness, "
            + "the larger of the cell's and the whole report's): "
            + reasons.joined(separator: "; ") + "."
    }

    /// 3600 → "1 h", 90 → "90 s".
    static func duration(_ seconds: Int) -> String {
        if seconds % 86_400 == 0 { return "\(seconds / 86_400) d" }
        if seconds % 3_600 == 0 { return "\(seconds / 3_600) h" }
        if seconds % 60 == 0 { return "\(seconds / 60) min" }
        return "\(seconds) s"
    }

    /// Whether a report has anything about conversions to show.
    static func hasConversions(_ report: EngagementReport) -> Bool {
        !report.conversions.isEmpty || !report.overall.conversions.isEmpty || report.categories.contains { !$0.conversions.isEmpty }
    }

    static func range(_ report: EngagementReport) -> String {
        "\(report.from.iso8601(fractionDigits: 0)) to \(report.to.iso8601(fractionDigits: 0)) (days in \(report.timeZone))"
    }

    static func filters(_ report: EngagementReport) -> String? {
        let pairs = report.filters.pairs
        guard !pairs.isEmpty else { return nil }
        return pairs.map { "\($0.0.rawValue)=\($0.1.isEmpty ? "(none)" : $0.1)" }.joined(separator: ", ")
    }

    /// Fits text into `width` characters, ending with an ellipsis when cut.
    static func fit(_ text: String, _ width: Int) -> String {
        text.count <= width ? text : String(text.prefix(max(0, width - 1))) + "…"
    }

    static let notes: [String] = [
        "Reply: p50/p90 reply length in characters. TTR: median/p90 time from delivery to an engaged response.",
        "Engaged = opens + registered actions (text replies included), over delivered; an asterisk (*) marks a category with no delivered events, whose base is sent. All categories counts only the categories with delivered events whose engagement is meaningful; the others are named under the adjusted table.",
        "Dismiss \"n/m\": not measurable. iOS reports dismissals only for categories registered with customDismissAction; it is not zero.",
        "Rich vs text-only is classified by the media present when the user saw the notification; intervals are Wilson 95% per side and Newcombe 95% for the pooled difference.",
        "Pooled: all of a category's rich against all its text-only notifications. Adjusted: compared inside each \(EngagementReportBuilder.strataDimensions) stratum (and category, for All categories; a UTC day the range cuts is one stratum per category), then combined (Mantel–Haenszel, Sato 95% interval, Cochran–Mantel–Haenszel p); strata with one side only are excluded, and so are cells with no delivered events or with more engaged than delivered. Pooled figures mix strata with different base rates (Simpson's paradox): act on the adjusted one.",
        "Confounded (⚠): pooled and adjusted differ in sign, or pooled lies outside the adjusted 95% interval.",
        "Anytime CI: the adjusted difference's 95% interval that stays valid however often the report is read (Howard et al. 2021, normal mixture), looked at once per UTC day of the range; decided on: the first UTC day it excluded 0. Act on that day, not on the first day the fixed 95% interval excludes 0: read daily, that one misleads far more often than 5% of the time.",
        "Detectable: the smallest difference the adjusted test finds with 80% power at α = 0.05 with the deliveries so far. Target: --target-difference, else the adjusted difference when significant (obs), else 2 pp (dflt); days at the range's delivered per day, same mix.",
        "\"invalid\": more engaged than delivered (responses without their deliveries, or several engaging responses to one notification), so no rate is shown.",
    ]

    static func sampleNote(_ report: EngagementReport) -> String {
        "Comparisons need at least \(report.minimumSample.perSide) delivered per side and an expected count of \(fixed(report.minimumSample.expectedCount, 0)) engaged and not engaged (z-test validity); below that: insufficient data."
    }

    static func resolutionNote() -> String {
        "Reply length: \(EngagementReport.replyLengthResolution). Time to response: \(EngagementReport.timeToResponseResolution)."
    }
}
