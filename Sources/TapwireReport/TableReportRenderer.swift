import TapwireCore
import Foundation

/// An aligned plain-text table for a terminal, at most 100 columns wide.
public struct TableReportRenderer: Sendable {
    public init() {}

    public func render(_ report: EngagementReport) -> String {
        var out: [String] = []
        out.append("Engagement report: \(report.app)")
        out.append(Fmt.range(report))
        if let filters = Fmt.filters(report) { out.append("Filters: \(filters)") }
        out.append("")
        section(&out, report.categories, report.overall)
        for group in report.groups {
            out.append("")
            out.append("── \(group.dimension.rawValue) = \(group.value.isEmpty ? "(none)" : group.value) " + String(repeating: "─", count: 20))
            section(&out, group.categories, group.overall)
        }
        let holdouts = Fmt.holdoutLines(report)
        if !holdouts.isEmpty {
            out.append("")
            out.append("Holdouts: what the notifications caused")
            for line in holdouts { out.append(contentsOf: wrap(TextSafety.printable(line), 100)) }
        }
        out.append("")
        for note in Fmt.notes + [Fmt.sampleNote(report), Fmt.resolutionNote()] { out.append(contentsOf: wrap(note, 100)) }
        if Fmt.hasConversions(report) { out.append(contentsOf: wrap(Fmt.conversionNote(report), 100)) }
        if report.categories.contains(where: { $0.base == .sent }) { out.append("* engagement over sent (no delivered events)") }
        return out.joined(separator: "\n") + "\n"
    }

    func section(_ out: inout [String], _ categories: [CategoryEngagement], _ overall: CategoryEngagement) {
        let rows = categories + [overall]
        out.append("Engagement by category")
        table(&out, ReportColumns.engagement, rows)
        out.append("")
        out.append("Rich vs text-only (engagement rate)")
        table(&out, ReportColumns.uplift, rows)
        out.append("")
        out.append("Rich vs text-only adjusted for \(EngagementReportBuilder.strataDimensions) (Mantel–Haenszel)")
        table(&out, ReportColumns.adjusted, rows)
        for line in Fmt.rowNotes(rows) { out.append(contentsOf: wrap(line, 100)) }
        out.append("")
        out.append("How long until the difference is known (80% power, α = 0.05; anytime-valid 95%, looked at daily)")
        table(&out, ReportColumns.detection, rows)
        out.append("")
        out.append("Sample sizes, media failures, actions")
        table(&out, ReportColumns.detail, rows)
        let conversions = ConversionLine.lines(categories, overall)
        guard !conversions.isEmpty else { return }
        out.append("")
        out.append("Conversions (rate over delivered)")
        table(&out, ReportColumns.conversions, conversions, isTotal: \.isTotal)
        out.append("")
        out.append("Rich vs text-only on conversion, adjusted for \(EngagementReportBuilder.strataDimensions)")
        table(&out, ReportColumns.conversionUplift, conversions, isTotal: \.isTotal)
        let actions = ConversionActionLine.lines(categories, overall)
        if !actions.isEmpty {
            out.append("")
            out.append("Direct conversions by the action before them")
            table(&out, ReportColumns.conversionActions, actions, isTotal: \.isTotal)
        }
    }

    func table(_ out: inout [String], _ columns: [Column<CategoryEngagement>], _ rows: [CategoryEngagement]) {
        table(&out, columns, rows) { $0.category == nil }
    }

    /// A separator line comes before the first total row that follows other rows.
    func table<Row>(_ out: inout [String], _ columns: [Column<Row>], _ rows: [Row], isTotal: (Row) -> Bool) {
        func line(_ cells: [String]) -> String {
            zip(columns, cells).map { column, cell in
                let padding = String(repeating: " ", count: max(0, column.width - cell.count))
                return column.right ? padding + cell : cell + padding
            }.joined(separator: " ").trailingSpacesRemoved
        }
        out.append(line(columns.map(\.header)))
        out.append(columns.map { String(repeating: "─", count: $0.width) }.joined(separator: " "))
        for (i, row) in rows.enumerated() {
            if i > 0, isTotal(row), !isTotal(rows[i - 1]) {
                out.append(columns.map { String(repeating: "┄", count: $0.width) }.joined(separator: " "))
            }
            out.append(line(columns.map { $0.cell(row) }))
        }
    }

    func wrap(_ text: String, _ width: Int) -> [String] {
        var lines: [String] = []
        var current = ""
        for word in text.split(separator: " ") {
            if !current.isEmpty, current.count + 1 + word.count > width {
                lines.append(current)
                current = "  "
            }
            current += (current.isEmpty || current == "  " ? "" : " ") + word
        }
        if !current.isEmpty { lines.append(current) }
        return lines
    }
}

extension String {
    var trailingSpacesRemoved: String {
        var s = Substring(self)
        while s.last == " " { s.removeLast() }
        return String(s)
    }
}
