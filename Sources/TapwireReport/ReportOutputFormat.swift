import TapwireCore
import TapwireStatistics
import TapwireStore

/// The output formats, one renderer each.
public enum ReportOutputFormat: String, Sendable, CaseIterable {
    case table, json, csv, md, html

    public init?(name: String) {
        switch name.lowercased() {
        case "table", "text": self = .table
        case "json": self = .json
        case "csv": self = .csv
        case "md", "markdown": self = .md
        case "html": self = .html
        default: return nil
        }
    }

    public var contentType: String {
        switch self {
        case .table: return "text/plain; charset=utf-8"
        case .json: return "application/json"
        case .csv: return "text/csv; charset=utf-8"
        case .md: return "text/markdown; charset=utf-8"
        case .html: return "text/html; charset=utf-8"
        }
    }

    /// `findings`: the category mismatches of the same app and range and its release-regression
    /// check, shown as sections of the table, Markdown and HTML reports (JSON and CSV keep their
    /// schema; findings have their own endpoint and JSON).
    public func render(_ report: EngagementReport, findings: FindingsReport? = nil) -> String {
        switch self {
        case .table:
            var text = TableReportRenderer().render(report)
            if let findings { text += findings.reportText }
            return text
        case .json: return JSONReportRenderer().render(report)
        case .csv: return CSVReportRenderer().render(report)
        case .md:
            var text = MarkdownReportRenderer().render(report)
            if let findings {
                text += findings.reportMarkdown
            }
            return text
        case .html: return HTMLReportRenderer().render(report, findings: findings)
        }
    }

    /// Whether this format shows the findings sections (so callers only compute them when needed).
    public var showsFindings: Bool { self == .table || self == .md || self == .html }
}
