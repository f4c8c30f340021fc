import TapwireCore

// The category-mismatch family's renderers (its report, alone at GET /v1/reports/mismatches and as
// its section of the findings): JSON, CSV, the terminal table and HTML. Device-sent identifiers go
// through the one escaper of each kind (CSVField.escape, HTML.escape, TextSafety.printable in
// TapwireCore/Support/CSVField.swift, HTML.swift and TextSafety.swift).

extension MismatchReport {
    /// `{"findings": [...]}`, each finding in the documented field order.
    public var json: JSONValue { .object([("findings", .array(findings.map(\.json)))]) }

    public static let csvHeader = ["kind", "severity", "category", "action", "count", "appVersions", "platforms",
                                   "firstSeen", "lastSeen", "suggestion", "message"]

    /// RFC 4180 CSV with a header row; lists are joined with ';'.
    public var csv: String {
        var out = Self.csvHeader.joined(separator: ",") + "\r\n"
        for f in findings {
            let fields = [f.kind.rawValue, f.severity.rawValue, f.category, f.action ?? "", String(f.count),
                          f.appVersions.joined(separator: ";"), f.platforms.joined(separator: ";"),
                          f.firstSeen?.description ?? "", f.lastSeen?.description ?? "", f.suggestion ?? "", f.message]
            out += fields.map(CSVField.escape).joined(separator: ",") + "\r\n"
        }
        return out
    }

    /// Rows for a terminal table: what a person scans first, widest text last.
    public var tableRows: [[String]] {
        findings.map { f in
            [f.severity.rawValue, f.kind.rawValue, f.category, f.action.map(Self.shortAction) ?? "-", String(f.count),
             f.appVersions.map { $0.isEmpty ? "(none)" : $0 }.joined(separator: ","), f.platforms.joined(separator: ","),
             f.lastSeen?.iso8601(fractionDigits: 0) ?? "-", f.suggestion ?? "-"]
        }
    }

    /// The system identifiers are long and well known: the table says (open) and (dismiss).
    static func shortAction(_ action: String) -> String {
        action == SystemAction.dismiss ? "(dismiss)" : action == SystemAction.open ? "(open)" : action
    }

    public static let tableHeader = ["SEVERITY", "KIND", "CATEGORY", "ACTION", "COUNT", "VERSIONS", "PLATFORMS", "LAST SEEN", "SUGGESTION"]

    /// A plain-text table (`TextTable`), and a line that counts the findings.
    public var table: String {
        if findings.isEmpty {
            return "No category mismatches for \(app) since \(since.iso8601(fractionDigits: 0)).\n"
        }
        var out = TextTable.render(header: Self.tableHeader, rows: tableRows)
        let summary = countsBySeverity.filter { $0.1 > 0 }.map { "\($0.1) \($0.0.rawValue)" }.joined(separator: ", ")
        out += "\n\(findings.count) finding\(findings.count == 1 ? "" : "s") (\(summary)) for \(app) since \(since.iso8601(fractionDigits: 0)).\n"
        return out
    }

    /// The findings as an HTML fragment (a <section>), for embedding in a larger report.
    public var htmlSection: String {
        var out = "<section class=\"tapwire-mismatches\">\n<h2>Category mismatches</h2>\n"
        if findings.isEmpty {
            out += "<p>No category mismatches between \(HTML.escape(since.description)) and \(HTML.escape(until.description)).</p>\n</section>\n"
            return out
        }
        let summary = countsBySeverity.filter { $0.1 > 0 }.map { "\($0.1) \($0.0.rawValue)" }.joined(separator: ", ")
        out += "<p>\(findings.count) finding\(findings.count == 1 ? "" : "s") (\(HTML.escape(summary))) between \(HTML.escape(since.description)) and \(HTML.escape(until.description)).</p>\n"
        out += "<table>\n<thead><tr>"
        for h in ["Severity", "Kind", "Category", "Action", "Count", "App versions", "Platforms", "First seen", "Last seen", "Suggestion", "What to do"] {
            out += "<th>\(h)</th>"
        }
        out += "</tr></thead>\n<tbody>\n"
        for f in findings {
            let cells = [f.severity.rawValue, f.kind.rawValue, f.category, f.action ?? "", String(f.count),
                         f.appVersions.map { $0.isEmpty ? "(none)" : $0 }.joined(separator: ", "), f.platforms.joined(separator: ", "),
                         f.firstSeen?.description ?? "", f.lastSeen?.description ?? "", f.suggestion ?? "", f.message]
            out += "<tr class=\"severity-\(f.severity.rawValue)\">" + cells.map { "<td>\(HTML.escape($0))</td>" }.joined() + "</tr>\n"
        }
        out += "</tbody>\n</table>\n</section>\n"
        return out
    }

    /// A self-contained page (no external assets) around `htmlSection`.
    public var htmlPage: String {
        """
        <!DOCTYPE html>
        <html lang="en"><head><meta charset="utf-8">
        <title>Tapwire mismatches: \(HTML.escape(app))</title>
        <style>\(FindingsReport.pageCSS)</style></head><body>
        <h1>Category mismatches for \(HTML.escape(app))</h1>
        \(htmlSection)</body></html>

        """
    }
}

extension MismatchFinding {
    /// The documented shape: kind, severity, category, action, count, appVersions, platforms,
    /// firstSeen, lastSeen, suggestion; then message and the tallies behind count.
    public var json: JSONValue {
        .object([
            ("kind", .string(kind.rawValue)),
            ("severity", .string(severity.rawValue)),
            ("category", .string(category)),
            ("action", .optional(action)),
            ("count", .int(count)),
            ("appVersions", .array(appVersions.map { .string($0) })),
            ("platforms", .array(platforms.map { .string($0) })),
            ("firstSeen", .optional(firstSeen?.description)),
            ("lastSeen", .optional(lastSeen?.description)),
            ("suggestion", .optional(suggestion)),
            ("message", .string(message)),
            ("events", .object([("delivered", .int(tally.delivered)), ("sent", .int(tally.sent)), ("responses", .int(tally.responses))])),
        ])
    }
}
