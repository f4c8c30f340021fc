import Foundation
import TapwireCore
import TapwireStatistics
import TapwireStore

/// One self-contained HTML page: inline CSS, inline SVG charts, no script and no external
/// fetch (a Content-Security-Policy of default-src 'none' enforces it in the browser).
public struct HTMLReportRenderer: Sendable {
    public init() {}

    static let richColour = "#6d28d9"
    static let textColour = "#0ea5e9"
    static let barColour = "#2563eb"

    public func render(_ report: EngagementReport, findings: FindingsReport? = nil) -> String {
        var html = """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>Engagement report: \(HTML.escape(report.app))</title>
        <style>\(Self.css)\(report.holdouts.isEmpty ? "" : HoldoutChart.css)\(findings?.css ?? "")</style>
        </head>
        <body>
        <header><h1>Engagement report: \(HTML.escape(report.app))</h1>
        <p class="range">\(HTML.escape(Fmt.range(report)))\(Fmt.filters(report).map { " · filters: " + HTML.escape($0) } ?? "")</p></header>

        """
        html += section(title: nil, categories: report.categories, overall: report.overall, days: report.days)
        for group in report.groups {
            html += section(title: "\(group.dimension.rawValue) = \(group.value.isEmpty ? "(none)" : group.value)",
                            categories: group.categories, overall: group.overall, days: report.days)
        }
        let holdouts = Fmt.holdoutLines(report)
        if !holdouts.isEmpty {
            html += "<section class=\"holdouts\"><h2>Holdouts: what the notifications caused</h2><ul>\n"
            for line in holdouts { html += "<li>\(HTML.escape(line))</li>\n" }
            html += "</ul>\n"
            for effect in report.holdouts {
                html += "<h3>\(HTML.escape(effect.campaign)): cumulative conversion rate by UTC day, treated and held out</h3>\n"
                    + HoldoutChart(effect: effect).svg
            }
            html += "</section>\n"
        }
        if let findings { html += findings.htmlSection }
        html += "<section class=\"notes\"><h2>Notes</h2><ul>\n"
        for note in Fmt.notes + [Fmt.sampleNote(report), Fmt.resolutionNote()] { html += "<li>\(HTML.escape(note))</li>\n" }
        if Fmt.hasConversions(report) { html += "<li>\(HTML.escape(Fmt.conversionNote(report)))</li>\n" }
        html += "</ul><p class=\"meta\">Generated \(HTML.escape(report.generatedAt.iso8601(fractionDigits: 0))) from \(report.source.rawValue), schema version \(EngagementReport.schemaVersion).</p></section>\n"
        html += "</body>\n</html>\n"
        return html
    }

    func section(title: String?, categories: [CategoryEngagement], overall: CategoryEngagement, days: [String]) -> String {
        var html = "<section class=\"report\">\n"
        if let title { html += "<h2 class=\"group\">\(HTML.escape(title))</h2>\n" }
        html += summary(overall)
        html += "<h2>Engagement by category</h2>\n" + engagementChart(categories + [overall])
        html += "<h2>Rich vs text-only</h2>\n" + upliftChart((categories + [overall]).map { ($0.displayName, $0.category == nil, $0.uplift) },
                                                             className: "chart chart-uplift",
                                                             label: "Rich versus text-only engagement rate by category with 95% confidence intervals")
        html += "<h2>Daily trend</h2>\n" + dailyChart(overall.daily)
        let rows = categories + [overall]
        for (heading, columns) in [("Engagement", ReportColumns.engagement), ("Rich vs text-only (pooled)", ReportColumns.uplift),
                                   ("Rich vs text-only adjusted for \(EngagementReportBuilder.strataDimensions)", ReportColumns.adjusted),
                                   ("How long until the difference is known", ReportColumns.detection),
                                   ("Sample sizes, media failures, actions", ReportColumns.detail)] {
            html += "<h3>\(HTML.escape(heading))</h3>\n" + table(columns, rows)
            if heading.hasPrefix("Rich vs text-only adjusted") {
                html += confoundedNotes(rows)
            }
        }
        return html + conversions(categories, overall) + "</section>\n"
    }

    /// Conversions: a chart per category of each name's conversion rate, rich against text-only,
    /// then the tables.
    func conversions(_ categories: [CategoryEngagement], _ overall: CategoryEngagement) -> String {
        let lines = ConversionLine.lines(categories, overall)
        guard !lines.isEmpty else { return "" }
        var html = "<h2>Conversions</h2>\n"
        for c in categories + [overall] where !c.conversionUplift.isEmpty {
            html += "<h3>\(HTML.escape(c.displayName)): conversion rate, rich vs text-only</h3>\n"
            html += upliftChart(c.conversionUplift.map { u in
                (u.currency.isEmpty ? u.name : "\(u.name) (\(u.currency))", false, u.uplift)
            }, className: "chart chart-conversion", label: "Rich versus text-only conversion rate in \(c.displayName) with 95% confidence intervals")
        }
        html += "<h3>Conversions (rate over delivered)</h3>\n" + table(ReportColumns.conversions, lines, isTotal: \.isTotal)
        html += "<h3>Rich vs text-only on conversion, adjusted for \(HTML.escape(EngagementReportBuilder.strataDimensions))</h3>\n"
            + table(ReportColumns.conversionUplift, lines, isTotal: \.isTotal)
        let actions = ConversionActionLine.lines(categories, overall)
        if !actions.isEmpty {
            html += "<h3>Direct conversions by the action before them</h3>\n" + table(ReportColumns.conversionActions, actions, isTotal: \.isTotal)
        }
        return html
    }

    /// A badge and a one-line explanation for each confounded row, and a line for each rate that
    /// is not meaningful.
    func confoundedNotes(_ rows: [CategoryEngagement]) -> String {
        var html = ""
        for row in rows where row.uplift.confounded {
            html += "<p class=\"confounded\"><span class=\"badge\">confounded</span> <b>\(HTML.escape(row.displayName))</b>: \(HTML.escape(Fmt.confoundedExplanation(row.uplift)))</p>\n"
        }
        for line in Fmt.rowNotes(rows) where !line.hasPrefix("⚠") {
            html += "<p class=\"not-meaningful\">\(HTML.escape(line))</p>\n"
        }
        return html
    }

    /// The headline: the adjusted overall difference, the pooled one beside it.
    func summary(_ overall: CategoryEngagement) -> String {
        let u = overall.uplift
        var verdict: String
        if u.adjusted.sufficient {
            verdict = "Rich vs text-only, all categories, adjusted for category × \(EngagementReportBuilder.strataDimensions): \(Fmt.points(u.adjusted.difference.map { $0 * 100 })) \(Fmt.interval(u.adjusted.ci95, signed: true)), p \(Fmt.pValue(u.adjusted.pValue))"
            if let anytime = u.adjusted.anytime.ci95 {
                verdict += "; anytime-valid \(Fmt.interval(anytime, signed: true)), "
                    + (u.adjusted.anytime.decidedOn.map { "decided on \($0) (UTC)" } ?? "not decided yet")
            }
        } else {
            verdict = "Rich vs text-only, adjusted: insufficient data (\(u.adjusted.reason ?? ""))"
        }
        if u.sufficient {
            verdict += " · pooled: \(Fmt.points(u.differencePoints)) \(Fmt.interval(u.differenceCIPoints, scale: 1, signed: true)) (rich \(Fmt.percent(u.rich.rate)) vs text-only \(Fmt.percent(u.textOnly.rate)))"
        } else {
            verdict += " · pooled: insufficient data (\(u.comparison.insufficientReason ?? ""))"
        }
        var badge = u.confounded
            ? "<p class=\"confounded\"><span class=\"badge\">confounded</span> \(HTML.escape(Fmt.confoundedExplanation(u)))</p>\n" : ""
        if !overall.excludedCategories.isEmpty {
            badge += "<p class=\"muted\">\(HTML.escape(overall.displayName + " leaves out " + overall.excludedCategories.map(Fmt.exclusion).joined(separator: "; ")))</p>\n"
        }
        return """
        <div class="cards">
        <div class="card"><span class="k">Delivered</span><span class="v">\(Fmt.count(overall.delivered))</span></div>
        <div class="card"><span class="k">Engagement</span><span class="v">\(overall.engagementNotMeaningful == nil ? Fmt.percent(overall.engagementRate) : "not meaningful")</span><span class="s">\(HTML.escape(overall.engagementNotMeaningful == nil ? Fmt.interval(overall.engagementCI95) : "more engaged than delivered"))</span></div>
        <div class="card"><span class="k">Dismiss</span><span class="v">\(overall.dismiss.measurable ? Fmt.percent(overall.dismiss.rate) : "not measurable")</span></div>
        <div class="card"><span class="k">Median time to response</span><span class="v">\(Fmt.seconds(overall.timeToResponse.p50Seconds))</span></div>
        </div>
        <p class="verdict">\(HTML.escape(verdict))</p>
        \(badge)<p class="muted">Pooling mixes categories, campaigns, versions and platforms with different media shares and base rates; the adjusted figures compare like with like.</p>

        """
    }

    /// Horizontal bars of the engagement rate with Wilson 95% whiskers.
    func engagementChart(_ rows: [CategoryEngagement]) -> String {
        let width = 760.0, label = 170.0, rowHeight = 26.0, top = 10.0
        let plot = width - label - 70
        let maxValue = niceMax(rows.compactMap { $0.engagementCI95?.upper ?? $0.engagementRate })
        let height = top + rowHeight * Double(rows.count) + 28
        var svg = svgOpen(width: width, height: height, className: "chart chart-engagement",
                          label: "Engagement rate by category with 95% confidence intervals")
        svg += axis(x: label, y: top, plot: plot, height: rowHeight * Double(rows.count), maxValue: maxValue)
        for (i, row) in rows.enumerated() {
            let y = top + Double(i) * rowHeight
            svg += text(x: label - 8, y: y + rowHeight / 2 + 4, anchor: "end", Fmt.fit(row.displayName, 24), bold: row.category == nil)
            guard let rate = row.engagementRate else { continue }
            let w = min(rate, maxValue) / maxValue * plot
            svg += "<rect class=\"bar\" x=\"\(f(label))\" y=\"\(f(y + 5))\" width=\"\(f(w))\" height=\"\(f(rowHeight - 10))\" fill=\"\(Self.barColour)\"><title>\(HTML.escape(row.displayName)): \(Fmt.percent(rate)) \(HTML.escape(Fmt.interval(row.engagementCI95)))</title></rect>\n"
            if let ci = row.engagementCI95 { svg += whisker(ci, x0: label, plot: plot, maxValue: maxValue, y: y + rowHeight / 2) }
            svg += text(x: label + plot + 6, y: y + rowHeight / 2 + 4, anchor: "start", Fmt.percent(rate))
        }
        return svg + "</svg>\n"
    }

    /// For each row (a category on engagement, a conversion name on conversion), the rich and the
    /// text-only rate side by side, each with its whisker, and the adjusted difference with its
    /// interval (or "insufficient data").
    func upliftChart(_ rows: [(name: String, total: Bool, uplift: RichUplift)], className: String, label chartLabel: String) -> String {
        let width = 760.0, label = 170.0, groupHeight = 46.0, top = 30.0
        let plot = width - label - 230
        let values = rows.flatMap { [$0.uplift.rich.ci95?.upper, $0.uplift.textOnly.ci95?.upper] }.compactMap { $0 }
        let maxValue = niceMax(values)
        let height = top + groupHeight * Double(rows.count) + 28
        var svg = svgOpen(width: width, height: height, className: className, label: chartLabel)
        svg += "<rect x=\"\(f(label))\" y=\"6\" width=\"12\" height=\"12\" fill=\"\(Self.richColour)\"/>"
        svg += text(x: label + 16, y: 16, anchor: "start", "rich (media shown)")
        svg += "<rect x=\"\(f(label + 150))\" y=\"6\" width=\"12\" height=\"12\" fill=\"\(Self.textColour)\"/>"
        svg += text(x: label + 166, y: 16, anchor: "start", "text-only") + "\n"
        svg += axis(x: label, y: top, plot: plot, height: groupHeight * Double(rows.count), maxValue: maxValue)
        for (i, row) in rows.enumerated() {
            let y = top + Double(i) * groupHeight
            svg += text(x: label - 8, y: y + groupHeight / 2 + 4, anchor: "end", Fmt.fit(row.name, 24), bold: row.total)
            for (j, side) in [row.uplift.rich, row.uplift.textOnly].enumerated() {
                let barY = y + 6 + Double(j) * 17
                guard let rate = side.rate else { continue }
                let colour = j == 0 ? Self.richColour : Self.textColour
                let w = min(rate, maxValue) / maxValue * plot
                svg += "<rect class=\"bar\" x=\"\(f(label))\" y=\"\(f(barY))\" width=\"\(f(w))\" height=\"14\" fill=\"\(colour)\"><title>\(j == 0 ? "rich" : "text-only"): \(Fmt.percent(rate)) of \(Fmt.count(side.delivered))</title></rect>\n"
                if let ci = side.ci95 { svg += whisker(ci, x0: label, plot: plot, maxValue: maxValue, y: barY + 7) }
            }
            let adjusted = row.uplift.adjusted
            let verdict = adjusted.sufficient
                ? "adj. \(Fmt.points(adjusted.difference.map { $0 * 100 })) \(Fmt.interval(adjusted.ci95, signed: true))\(row.uplift.confounded ? " ⚠" : "")"
                : "insufficient data"
            svg += text(x: label + plot + 10, y: y + groupHeight / 2 + 4, anchor: "start", verdict, className: adjusted.sufficient ? "diff" : "muted")
        }
        return svg + "</svg>\n"
    }

    /// Delivered per day as bars, the engagement rate per day as a line on its own axis.
    func dailyChart(_ points: [DailyPoint]) -> String {
        let width = 760.0, height = 240.0, left = 60.0, right = 60.0, top = 14.0, bottom = 40.0
        let plotW = width - left - right, plotH = height - top - bottom
        var svg = svgOpen(width: width, height: height, className: "chart chart-daily",
                          label: "Daily delivered notifications and engagement rate")
        guard !points.isEmpty else { return svg + text(x: left, y: top + 20, anchor: "start", "no days in range") + "</svg>\n" }
        let maxDelivered = Double(max(1, points.map(\.delivered).max() ?? 1))
        // A day with more engaged than delivered has no rate (never a point over 100%).
        let rates = points.map { ProportionStatistics.share($0.engaged, of: $0.delivered) }
        let maxRate = niceMax(rates.compactMap { $0 })
        let step = plotW / Double(points.count)
        svg += "<line class=\"axis\" x1=\"\(f(left))\" y1=\"\(f(top + plotH))\" x2=\"\(f(left + plotW))\" y2=\"\(f(top + plotH))\"/>\n"
        svg += text(x: left - 6, y: top + 8, anchor: "end", Fmt.count(Int(maxDelivered)), className: "tick")
        svg += text(x: left - 6, y: top + plotH, anchor: "end", "0", className: "tick")
        svg += text(x: left + plotW + 6, y: top + 8, anchor: "start", Fmt.percent(maxRate, digits: 0), className: "tick rate-label")
        var path: [String] = []
        for (i, point) in points.enumerated() {
            let x = left + Double(i) * step
            let h = Double(point.delivered) / maxDelivered * plotH
            svg += "<rect class=\"day\" x=\"\(f(x + step * 0.15))\" y=\"\(f(top + plotH - h))\" width=\"\(f(step * 0.7))\" height=\"\(f(h))\"><title>\(point.date): \(Fmt.count(point.delivered)) delivered, \(Fmt.count(point.engaged)) engaged</title></rect>\n"
            if let rate = rates[i] {
                let y = top + plotH - min(rate, maxRate) / maxRate * plotH
                path.append("\(f(x + step / 2)),\(f(y))")
            }
            let every = max(1, points.count / 8)
            if i % every == 0 { svg += text(x: x + step / 2, y: top + plotH + 16, anchor: "middle", String(point.date.suffix(5)), className: "tick") }
        }
        if path.count > 1 { svg += "<polyline class=\"rate\" points=\"\(path.joined(separator: " "))\"/>\n" }
        for point in path.count == 1 ? path : [] {
            let xy = point.split(separator: ",")
            svg += "<circle class=\"rate-dot\" cx=\"\(xy[0])\" cy=\"\(xy[1])\" r=\"3\"/>\n"
        }
        svg += text(x: left, y: height - 6, anchor: "start", "bars: delivered per day · line: engagement rate (right axis)", className: "muted")
        return svg + "</svg>\n"
    }

    func table(_ columns: [Column<CategoryEngagement>], _ rows: [CategoryEngagement]) -> String {
        table(columns, rows) { $0.category == nil }
    }

    func table<Row>(_ columns: [Column<Row>], _ rows: [Row], isTotal: (Row) -> Bool) -> String {
        var html = "<table><thead><tr>" + columns.map { "<th class=\"\($0.right ? "num" : "")\">\(HTML.escape($0.header))</th>" }.joined() + "</tr></thead><tbody>\n"
        for row in rows {
            html += "<tr\(isTotal(row) ? " class=\"total\"" : "")>"
            html += columns.map { "<td class=\"\($0.right ? "num" : "")\">\(HTML.escape($0.cell(row)))</td>" }.joined() + "</tr>\n"
        }
        return html + "</tbody></table>\n"
    }

    // MARK: SVG pieces

    func svgOpen(width: Double, height: Double, className: String, label: String) -> String {
        "<svg class=\"\(className)\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 \(f(width)) \(f(height))\" width=\"\(f(width))\" height=\"\(f(height))\" role=\"img\" aria-label=\"\(HTML.escape(label))\">\n"
    }

    func axis(x: Double, y: Double, plot: Double, height: Double, maxValue: Double) -> String {
        var svg = ""
        for k in 0...4 {
            let value = maxValue * Double(k) / 4
            let gx = x + plot * Double(k) / 4
            svg += "<line class=\"grid\" x1=\"\(f(gx))\" y1=\"\(f(y))\" x2=\"\(f(gx))\" y2=\"\(f(y + height))\"/>"
            svg += text(x: gx, y: y + height + 16, anchor: "middle", Fmt.percent(value, digits: 0), className: "tick")
        }
        return svg + "\n"
    }

    func whisker(_ ci: ConfidenceInterval, x0: Double, plot: Double, maxValue: Double, y: Double) -> String {
        let a = x0 + max(0, min(ci.lower, maxValue)) / maxValue * plot
        let b = x0 + max(0, min(ci.upper, maxValue)) / maxValue * plot
        return "<path class=\"whisker\" d=\"M\(f(a)) \(f(y))H\(f(b))M\(f(a)) \(f(y - 5))V\(f(y + 5))M\(f(b)) \(f(y - 5))V\(f(y + 5))\"/>\n"
    }

    func text(x: Double, y: Double, anchor: String, _ content: String, bold: Bool = false, className: String = "") -> String {
        "<text x=\"\(f(x))\" y=\"\(f(y))\" text-anchor=\"\(anchor)\"\(className.isEmpty ? "" : " class=\"\(className)\"")\(bold ? " font-weight=\"600\"" : "")>\(HTML.escape(content))</text>"
    }

    /// A round upper bound for an axis of rates: the next 5% step above the largest value.
    func niceMax(_ values: [Double]) -> Double {
        let top = values.max() ?? 0
        guard top > 0 else { return 0.1 }
        let steps: [Double] = [0.01, 0.02, 0.05, 0.1, 0.2, 0.25, 0.4, 0.5, 0.6, 0.8, 1.0]
        return steps.first { $0 >= top } ?? max(1, (top * 10).rounded(.up) / 10)
    }

    func f(_ value: Double) -> String { String(format: "%.1f", value) }


    static let css = """
    body{font:14px/1.45 -apple-system,BlinkMacSystemFont,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;color:#111827;margin:24px auto;max-width:1000px;padding:0 16px;background:#fff}
    h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px}h3{font-size:14px;margin:18px 0 6px;color:#374151}
    h2.group{border-top:2px solid #e5e7eb;padding-top:18px;font-size:19px}
    .range,.meta,.muted{color:#6b7280}.verdict{font-weight:600}
    .cards{display:flex;gap:12px;flex-wrap:wrap;margin:16px 0}
    .card{border:1px solid #e5e7eb;border-radius:8px;padding:10px 14px;min-width:150px;display:flex;flex-direction:column}
    .card .k{font-size:12px;color:#6b7280}.card .v{font-size:20px;font-weight:600}.card .s{font-size:12px;color:#6b7280}
    svg.chart{display:block;max-width:100%;height:auto;font-size:12px}
    svg .grid{stroke:#e5e7eb}svg .axis{stroke:#9ca3af}svg .tick{fill:#6b7280;font-size:11px}
    svg .whisker{stroke:#111827;stroke-width:1.5;fill:none}svg .day{fill:#bfdbfe}
    svg .rate{fill:none;stroke:#dc2626;stroke-width:2}svg .rate-label{fill:#dc2626}svg .rate-dot{fill:#dc2626}svg .diff{font-weight:600}svg .muted{fill:#6b7280}
    table{border-collapse:collapse;width:100%;font-size:13px;margin-bottom:8px}
    tr.severity-error td:first-child{color:#b00020;font-weight:600}tr.severity-warning td:first-child{color:#a15c00;font-weight:600}
    th,td{padding:4px 8px;border-bottom:1px solid #e5e7eb;text-align:left;white-space:nowrap}
    th.num,td.num{text-align:right;font-variant-numeric:tabular-nums}tr.total td{font-weight:600;border-top:2px solid #d1d5db}
    .notes li{color:#374151}
    .badge{display:inline-block;background:#b45309;color:#fff;border-radius:4px;padding:0 6px;font-size:12px;font-weight:600}
    p.confounded{margin:4px 0;color:#78350f}p.not-meaningful{margin:4px 0;color:#b00020}
    """
}
