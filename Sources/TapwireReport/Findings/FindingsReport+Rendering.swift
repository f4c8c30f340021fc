import TapwireCore

// The findings of every family, rendered: JSON, CSV, the terminal table and HTML, for
// `tapwire alerts`, `GET /v1/findings` and the engagement report. Each family renders its own
// findings and section (`FindingFamily`, `FindingsSection`); these put them together in
// `FindingFamilies` order and name no family.

extension FindingsReport {
    /// `{"app", "asOf", "findings": [...]}`, then each section's member (`"mismatches": {"since",
    /// "until"}`, `"regressions": {...}`): every family's findings in one list, each in its
    /// family's documented shape.
    public var json: JSONValue {
        .object([("app", .string(app)), ("asOf", .string(asOf.description)), ("findings", .array(findings.map(json)))]
                + sections.map { ($0.jsonMember.name, $0.jsonMember.value) })
    }

    /// A finding in its family's documented shape (`FindingFamily.json`).
    func json(_ finding: Finding) -> JSONValue {
        if let family = family(of: finding.kind) { return family.json(finding) }
        return .object([
            ("kind", .string(finding.kind.rawValue)), ("severity", .string(finding.severity.rawValue)),
            ("category", .string(finding.subject.category)), ("action", .optional(finding.subject.action)),
            ("appVersions", .array(finding.subject.appVersions.map { .string($0) })), ("since", .optional(finding.since?.description)),
            ("message", .string(finding.message)),
        ])
    }

    /// The family of the section a kind of finding comes from.
    func family(of kind: FindingKind) -> (any FindingFamily)? {
        sections.first { $0.family.kinds.contains(kind) }?.family
    }

    /// The columns every finding has, then each family's own (`FindingFamily.csvColumns`, in
    /// section order, each once), then when it began and its sentence.
    public var csvHeader: [String] { Self.commonColumns + familyColumns + ["since", "message"] }

    static let commonColumns = ["kind", "severity", "category", "action", "appVersions", "baselineVersion"]

    var familyColumns: [String] {
        var columns: [String] = []
        for section in sections { for column in section.family.csvColumns where !columns.contains(column) { columns.append(column) } }
        return columns
    }

    /// RFC 4180 CSV with a header row, a finding a line; lists are joined with ';'. Figures a
    /// family does not have are empty.
    public var csv: String {
        let familyColumns = familyColumns
        var out = csvHeader.joined(separator: ",") + "\r\n"
        for f in findings {
            let values = family(of: f.kind)?.csvValues(f) ?? [:]
            let fields = [f.kind.rawValue, f.severity.rawValue, f.subject.category, f.subject.action ?? "",
                          f.subject.appVersions.joined(separator: ";"), f.subject.baselineVersion ?? ""]
                + familyColumns.map { values[$0] ?? "" } + [f.since?.description ?? "", f.message]
            out += fields.map(CSVField.escape).joined(separator: ",") + "\r\n"
        }
        return out
    }

    /// Each section's table, then a line that counts every finding.
    public var table: String {
        var out = sections.map(\.table).joined(separator: "\n")
        let summary = countsBySeverity.filter { $0.1 > 0 }.map { "\($0.1) \($0.0.rawValue)" }.joined(separator: ", ")
        out += "\n\(findings.count) finding\(findings.count == 1 ? "" : "s")\(summary.isEmpty ? "" : " (\(summary))") for \(app) as of \(asOf.iso8601(fractionDigits: 0)).\n"
        return out
    }

    /// Every section, for embedding (the engagement report's HTML).
    public var htmlSection: String { sections.map(\.htmlSection).joined() }

    /// The CSS the sections need inside another page (the engagement report's).
    public var css: String { sections.map(\.family.css).joined() }

    /// The findings sections of the engagement report's terminal table: each section's table,
    /// under its title unless the table names itself.
    public var reportText: String {
        "\n" + sections.map { ($0.tableHasHeading ? "" : $0.title + "\n") + $0.table }.joined(separator: "\n")
    }

    /// The findings sections of the engagement report's Markdown: a heading and a code block each.
    public var reportMarkdown: String { sections.map { "\n## \($0.title)\n\n```\n" + $0.table + "```\n" }.joined() }

    /// A self-contained page (no external assets) around `htmlSection`.
    public var htmlPage: String { Self.page(app: app, title: "Findings", css: css, htmlSection) }

    /// A self-contained page around sections of findings (`css`, theirs): inline style, no script,
    /// no external asset.
    public static func page(app: String, title: String, css: String = FindingFamilies.css, _ sections: String) -> String {
        """
        <!DOCTYPE html>
        <html lang="en"><head><meta charset="utf-8">
        <meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
        <title>Tapwire \(HTML.escape(title.lowercased())): \(HTML.escape(app))</title>
        <style>\(pageCSS)\(css)</style></head><body>
        <h1>\(HTML.escape(title)) for \(HTML.escape(app))</h1>
        \(sections)</body></html>

        """
    }

    /// The style of a findings page: its type, tables, and the colours of severities and statuses.
    static let pageCSS = """
    body{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#222}
    table{border-collapse:collapse;width:100%}th,td{border-bottom:1px solid #ddd;padding:4px 8px;text-align:left;vertical-align:top}
    th{background:#f4f4f4}tr.severity-error td:first-child{color:#b00020;font-weight:600}
    tr.severity-warning td:first-child{color:#a15c00;font-weight:600}tr.severity-info td:first-child{color:#555}
    tr.status-flagged td:nth-child(3){color:#b00020;font-weight:600}

    """
}
