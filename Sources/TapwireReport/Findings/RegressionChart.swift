import TapwireCore

/// The chart beside a release-regression finding: the candidate's and the baseline's daily rate
/// of the flagged outcome, over the hours both delivered in (what the rule compared), as two
/// lines, with the day it was detected marked. Inline SVG, drawn with the engagement report's
/// pieces (HTMLReportRenderer.swift), so it needs no script and no external asset.
struct RegressionChart {
    var finding: RegressionFinding
    var days: [RegressionDay]

    static let candidateColour = "#dc2626"
    static let baselineColour = "#2563eb"

    static let css = """
    svg .candidate{fill:none;stroke:\(candidateColour);stroke-width:2}svg .baseline{fill:none;stroke:\(baselineColour);stroke-width:2}
    svg .candidate-dot{fill:\(candidateColour)}svg .baseline-dot{fill:\(baselineColour)}svg .detected{stroke:#111827;stroke-dasharray:4 3}
    svg.chart-regression{display:block;max-width:100%;height:auto;font-size:12px}svg .tick{fill:#6b7280;font-size:11px}
    svg .axis{stroke:#9ca3af}svg .muted{fill:#6b7280}

    """

    var svg: String {
        let draw = HTMLReportRenderer()
        let f = draw.f
        let width = 760.0, height = 220.0, left = 60.0, right = 20.0, top = 28.0, bottom = 40.0
        let plotW = width - left - right, plotH = height - top - bottom
        let outcome = finding.outcome.actionIdentifier.map(MismatchReport.shortAction) ?? finding.outcome.kind
        let title = "\(finding.category) · \(outcome): \(finding.candidateVersion) against \(finding.baselineVersions.joined(separator: ", "))"
        var svg = draw.svgOpen(width: width, height: height, className: "chart chart-regression",
                               label: "Daily rate of \(outcome) in \(finding.category), \(finding.candidateVersion) against its baseline")
        svg += draw.text(x: left, y: 16, anchor: "start", title, bold: true)
        guard !days.isEmpty else { return svg + draw.text(x: left, y: top + 20, anchor: "start", "no day both sides delivered") + "</svg>\n" }
        let maxRate = draw.niceMax(days.flatMap { [$0.candidate.rate, $0.baseline.rate] })
        let step = plotW / Double(days.count)
        svg += "<line class=\"axis\" x1=\"\(f(left))\" y1=\"\(f(top + plotH))\" x2=\"\(f(left + plotW))\" y2=\"\(f(top + plotH))\"/>\n"
        svg += draw.text(x: left - 6, y: top + 8, anchor: "end", Fmt.percent(maxRate, digits: 0), className: "tick")
        svg += draw.text(x: left - 6, y: top + plotH, anchor: "end", "0%", className: "tick")
        func y(_ rate: Double) -> Double { top + plotH - min(rate, maxRate) / maxRate * plotH }
        var candidate: [String] = [], baseline: [String] = []
        let detectedDay = RollupDeltas.floor(finding.detectedAt - 1, RollupDeltas.microsecondsPerDay)
        for (i, day) in days.enumerated() {
            let x = left + (Double(i) + 0.5) * step
            let date = String(Timestamp(microseconds: day.day).description.prefix(10))
            candidate.append("\(f(x)),\(f(y(day.candidate.rate)))")
            baseline.append("\(f(x)),\(f(y(day.baseline.rate)))")
            svg += "<circle class=\"candidate-dot\" cx=\"\(f(x))\" cy=\"\(f(y(day.candidate.rate)))\" r=\"3\"><title>\(HTML.escape(date)): \(HTML.escape(finding.candidateVersion)) \(Fmt.percent(day.candidate.rate)) of \(Fmt.count(day.candidate.delivered))</title></circle>\n"
            svg += "<circle class=\"baseline-dot\" cx=\"\(f(x))\" cy=\"\(f(y(day.baseline.rate)))\" r=\"3\"><title>\(HTML.escape(date)): baseline \(Fmt.percent(day.baseline.rate)) of \(Fmt.count(day.baseline.delivered))</title></circle>\n"
            if day.day == detectedDay {
                svg += "<line class=\"detected\" x1=\"\(f(x))\" y1=\"\(f(top))\" x2=\"\(f(x))\" y2=\"\(f(top + plotH))\"><title>detected \(HTML.escape(Timestamp(microseconds: finding.detectedAt).iso8601(fractionDigits: 0)))</title></line>\n"
            }
            let every = max(1, days.count / 8)
            if i % every == 0 { svg += draw.text(x: x, y: top + plotH + 16, anchor: "middle", String(date.suffix(5)), className: "tick") }
        }
        if days.count > 1 {
            svg += "<polyline class=\"baseline\" points=\"\(baseline.joined(separator: " "))\"/>\n"
            svg += "<polyline class=\"candidate\" points=\"\(candidate.joined(separator: " "))\"/>\n"
        }
        svg += draw.text(x: left, y: height - 6, anchor: "start",
                         "red: \(finding.candidateVersion) · blue: baseline · daily rate over the hours both delivered · dashed: detected",
                         className: "muted")
        return svg + "</svg>\n"
    }
}
