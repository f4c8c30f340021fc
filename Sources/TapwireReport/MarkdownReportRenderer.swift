import Foundation

/// GitHub-flavoured Markdown: the same three tables as the terminal.
public struct MarkdownReportRenderer: Sendable {
    public init() {}

    public func render(_ report: EngagementReport) -> String {
        var out: [String] = []
        out.append("# Engagement report: \(escape(report.app))")
        out.append("")
        out.append(Fmt.range(report) + (Fmt.filters(report).map { ". Filters: " + escape($0) } ?? ""))
        out.append("")
        section(&out, report.categories, report.overall, level: "##")
        for group in report.groups {
            out.append("## \(group.dimension.rawValue) = \(escape(group.value.isEmpty ? "(none)" : group.value))")
            out.append("")
            section(&out, group.categories, group.overall, level: "###")
        }
        let holdouts = Fmt.holdoutLines(report)
        if !holdouts.isEmpty {
            out.append("## Holdouts: what the notifications caused")
            out.append("")
            for line in holdouts { out.append("- " + escape(line)) }
            out.append("")
        }
        out.append("## Notes")
        out.append("")
        for note in Fmt.notes + [Fmt.sampleNote(report), Fmt.resolutionNote()] { out.append("- " + escape(note)) }
        if Fmt.hasConversions(report) { out.append("- " + escape(Fmt.conversionNote(report))) }
        return out.joined(separator: "\n") + "\n"
    }

    func section(_ out: inout [String], _ categories: [CategoryEngagement], _ overall: CategoryEngagement, level: String) {
        let rows = categories + [overall]
        for (title, columns) in [("Engagement by category", ReportColumns.engagement),
                                 ("Rich vs text-only (pooled)", ReportColumns.uplift),
                                 ("Rich vs text-only adjusted for \(EngagementReportBuilder.strataDimensions)", ReportColumns.adjusted),
                                 ("How long until the difference is known", ReportColumns.detection),
                                 ("Sample sizes, media failures, actions", ReportColumns.detail)] {
            table(&out, "\(level) \(title)", columns, rows) { $0.category == nil }
            if title.hasPrefix("Rich vs text-only adjusted") {
                for line in Fmt.rowNotes(rows) { out.append("- " + escape(line)) }
                if !Fmt.rowNotes(rows).isEmpty { out.append("") }
            }
        }
        let conversions = ConversionLine.lines(categories, overall)
        guard !conversions.isEmpty else { return }
        table(&out, "\(level) Conversions (rate over delivered)", ReportColumns.conversions, conversions, isTotal: \.isTotal)
        table(&out, "\(level) Rich vs text-only on conversion, adjusted for \(EngagementReportBuilder.strataDimensions)",
              ReportColumns.conversionUplift, conversions, isTotal: \.isTotal)
        let actions = ConversionActionLine.lines(categories, overall)
        if !actions.isEmpty {
            table(&out, "\(level) Direct conversions by the action before them", ReportColumns.conversionActions, actions, isTotal: \.isTotal)
        }
    }

    /// A heading and a table; the total rows are bold when other rows come with them.
    func table<Row>(_ out: inout [String], _ heading: String, _ columns: [Column<Row>], _ rows: [Row], isTotal: (Row) -> Bool) {
        out.append(heading)
        out.append("")
        out.append("| " + columns.map(\.header).joined(separator: " | ") + " |")
        out.append("|" + columns.map { $0.right ? " ---: |" : " --- |" }.joined())
        let mixed = rows.contains { !isTotal($0) }
        for row in rows {
            let cells = columns.map { escape($0.cell(row)) }
            let bold = isTotal(row) && mixed
            out.append("| " + cells.map { bold && !$0.isEmpty ? "**\($0)**" : $0 }.joined(separator: " | ") + " |")
        }
        out.append("")
    }

    /// Escapes what Markdown would interpret in table cells and text.
    func escape(_ text: String) -> String {
        var out = ""
        for c in text {
            if "|\\*_`[]<>#".contains(c) { out.append("\\") }
            out.append(c)
        }
        return out
    }
}
