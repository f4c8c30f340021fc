import TapwireCore

// The renderers of every family's findings: JSON, CSV, the terminal table and HTML, for
// `tapwire alerts`, `GET /v1/findings`, `GET /v1/reports/regressions` and the engagement report's
// findings sections. A mismatch finding renders as the mismatch report does
// (MismatchRenderers.swift); a release-regression finding with the names docs/regressions.md
// lists. Device-sent identifiers go through the one escaper of each kind.

extension Finding {
    /// The documented shape of the finding's family: a mismatch as `MismatchFinding.json`; a
    /// release regression with kind, severity, category, action, outcome, appVersion,
    /// baselineVersion(s), both sides' rates and deliveries, difference with its anytime-valid
    /// bounds, pooledDifference and detectedAt (at the look that detected it; `latest` holds the
    /// newest look), then message.
    public var json: JSONValue {
        switch evidence {
        case .mismatch(let f):
            return f.json
        case .regression(let r):
            var members: [(String, JSONValue)] = [
                ("kind", .string(kind.rawValue)), ("severity", .string(severity.rawValue)), ("category", .string(r.category)),
                ("action", .optional(r.outcome.actionIdentifier)), ("outcome", .string(r.outcome.kind)),
                ("appVersion", .string(r.candidateVersion)), ("baselineVersion", .string(r.baselineVersion)),
                ("baselineVersions", .array(r.baselineVersions.map { .string($0) })),
            ]
            members += r.atDetection.jsonMembers
            members.append(("detectedAt", .string(Timestamp(microseconds: r.detectedAt).description)))
            members.append(("latest", .object([("lookAt", .string(Timestamp(microseconds: r.latest.lookAt).description))]
                                              + r.latest.jsonMembers)))
            members.append(("message", .string(message)))
            return .object(members)
        case .manifestChange(let outcome, let registeredBy):
            return .object([
                ("kind", .string(kind.rawValue)), ("severity", .string(severity.rawValue)), ("category", .string(subject.category)),
                ("action", .optional(outcome.actionIdentifier)), ("outcome", .string(outcome.kind)),
                ("appVersion", .string(subject.appVersions.first ?? "")),
                ("registeredBy", .array(registeredBy.map { .string($0) })), ("message", .string(message)),
            ])
        }
    }
}

extension RegressionEvidence {
    /// Rates and differences are fractions (0.1 is 10%, a difference of -0.05 is 5 points down).
    var jsonMembers: [(String, JSONValue)] {
        let n = JSONReportRenderer()
        return [
            ("candidateRate", n.number(candidate.rate)), ("candidateDelivered", .int(candidate.delivered)),
            ("candidateResponses", .int(candidate.count)),
            ("baselineRate", n.number(baseline.rate)), ("baselineDelivered", .int(baseline.delivered)),
            ("baselineResponses", .int(baseline.count)),
            ("difference", n.number(difference)), ("differenceLower", n.number(anytimeValid.lower)),
            ("differenceUpper", n.number(anytimeValid.upper)), ("pooledDifference", n.number(pooledDifference)),
            ("fixedHorizon95", n.interval(fixedHorizon95)), ("minimumDrop", n.number(minimumDrop)),
            ("effectiveDeliveries", n.number(effectiveDeliveries, digits: 1)), ("strata", .int(strata)),
            ("notMeaningfulDeliveries", .int(notMeaningfulDeliveries)),
        ]
    }
}

extension RegressionSeriesResult {
    /// `flagged`, `fine`, `not_enough_data` or `exempt`.
    public var status: String {
        switch decision {
        case .flagged: "flagged"
        case .fine: "fine"
        case .notEnoughData: "not_enough_data"
        case .exempt: "exempt"
        }
    }

    /// Why a series has no verdict, or is not compared: its code and the sentence.
    public var reason: (code: String, text: String)? {
        switch decision {
        case .notEnoughData(let shortfall, _, _): (shortfall.code, shortfall.description)
        case .exempt(let exemption): (exemption.code, exemption.description)
        default: nil
        }
    }

    /// The look a person sees: the latest.
    public var evidence: RegressionEvidence? {
        switch decision {
        case .flagged(let finding): finding.latest
        case .fine(let evidence): evidence
        default: nil
        }
    }

    public var json: JSONValue {
        var members: [(String, JSONValue)] = [
            ("category", .string(category)), ("outcome", .string(outcome.kind)), ("action", .optional(outcome.actionIdentifier)),
            ("status", .string(status)), ("baselineVersions", .array(baselineVersions.map { .string($0) })),
        ]
        if let reason {
            members.append(("reason", .string(reason.code)))
            members.append(("detail", .string(reason.text)))
        }
        switch decision {
        case .notEnoughData(_, let candidate, let baseline):
            members.append(("candidateDelivered", .int(candidate)))
            members.append(("baselineDelivered", .int(baseline)))
        case .flagged(let finding):
            members.append(("detectedAt", .string(Timestamp(microseconds: finding.detectedAt).description)))
        default:
            break
        }
        if let evidence {
            members.append(("lookAt", .string(Timestamp(microseconds: evidence.lookAt).description)))
            members += evidence.jsonMembers
            members.append(("rulesOutMinimumDrop", .bool(evidence.rulesOutMinimumDrop)))
        }
        return .object(members)
    }
}

extension RegressionCheck {
    /// The comparison and every series with its status: `status` is `compared` or `no_comparison`
    /// (then `reason` says why, e.g. only one version delivered).
    public var json: JSONValue {
        var members: [(String, JSONValue)] = [
            ("asOf", .string(Timestamp(microseconds: asOf).description)),
            ("looksEnd", .string(Timestamp(microseconds: looksEnd).description)),
            ("lookSource", look.map { .string($0.source) } ?? .null),
            ("lookTakenAt", look?.takenAt.map { .string(Timestamp(microseconds: $0).description) } ?? .null),
            ("daysRead", daysRead.map { .object([("from", .string(Timestamp(microseconds: $0.from).description)),
                                                 ("to", .string(Timestamp(microseconds: $0.to).description))]) } ?? .null),
        ]
        switch evaluation {
        case .noComparison(let reason):
            members += [("status", "no_comparison"), ("reason", .string(reason))]
        case .comparison(let c):
            members += [
                ("status", "compared"), ("candidateVersion", .string(c.candidateVersion)),
                ("baselineVersions", .array(c.baselineVersions.map { .string($0) })),
                ("candidateManifestMissing", .bool(c.candidateManifestMissing)), ("seriesInFamily", .int(c.seriesInFamily)),
                ("alphaPerSeries", JSONReportRenderer().number(c.alphaPerSeries, digits: 8)),
                ("findings", .array(findings.map(\.json))),
                ("series", .array(c.results.map(\.json))),
            ]
        }
        return .object(members)
    }

    /// Which look is shown and when it was taken, in a sentence; nil when the caller did not say.
    public var lookLine: String? {
        guard let look else { return nil }
        let hour = Timestamp(microseconds: RollupDeltas.floor(asOf, RollupDeltas.microsecondsPerHour)).iso8601(fractionDigits: 0)
        switch look {
        case .stored(let takenAt):
            return "Look of \(hour), taken \(Timestamp(microseconds: takenAt).iso8601(fractionDigits: 0)) by the collectors' hourly check: "
                + "events that arrived after it are not counted (a fresh look counts them)."
        case .computed:
            return "Look of \(hour), computed now."
        }
    }

    /// The comparison in a line: "1.1 against 1.0, 0.9".
    var headline: String {
        switch evaluation {
        case .noComparison(let reason): "no comparison: \(reason)"
        case .comparison(let c): "\(c.candidateVersion) against \(c.baselineVersions.joined(separator: ", "))"
        }
    }

    static let tableHeader = ["CATEGORY", "OUTCOME", "STATUS", "CANDIDATE", "BASELINE", "DIFFERENCE", "ANYTIME-VALID", "NOTE"]

    /// Every series as a row: what it is, its status, both sides, the stratified difference (in
    /// points) with its anytime-valid interval, and when it was detected or why there is no verdict.
    var tableRows: [[String]] {
        guard let comparison else { return [] }
        return comparison.results.map { r in
            let outcome = r.outcome.actionIdentifier.map(MismatchReport.shortAction) ?? r.outcome.kind
            var row = [r.category, outcome, r.status.replacingOccurrences(of: "_", with: " ")]
            if let e = r.evidence {
                row += ["\(Fmt.percent(e.candidate.rate)) of \(Fmt.count(e.candidate.delivered))",
                        "\(Fmt.percent(e.baseline.rate)) of \(Fmt.count(e.baseline.delivered))",
                        Fmt.points(e.difference * 100), Fmt.interval(e.anytimeValid, signed: true)]
            } else if case .notEnoughData(_, let candidate, let baseline) = r.decision {
                row += ["\(Fmt.count(candidate)) delivered", "\(Fmt.count(baseline)) delivered", Fmt.dash, Fmt.dash]
            } else {
                row += [Fmt.dash, Fmt.dash, Fmt.dash, Fmt.dash]
            }
            switch r.decision {
            case .flagged(let f): row.append("detected \(Timestamp(microseconds: f.detectedAt).iso8601(fractionDigits: 0))")
            case .fine(let e): row.append(e.rulesOutMinimumDrop ? "a drop of \(Fmt.percent(e.minimumDrop)) ruled out" : "")
            default: row.append(r.reason?.text ?? "")
            }
            return row
        }
    }

    /// The check as text: a heading, then a row per series.
    public var table: String {
        var out = "Release regressions as of \(Timestamp(microseconds: asOf).iso8601(fractionDigits: 0)) "
            + "(looks through \(Timestamp(microseconds: looksEnd).iso8601(fractionDigits: 0))): \(headline)\n"
        if let lookLine { out += lookLine + "\n" }
        let rows = tableRows
        guard !rows.isEmpty else { return out }
        out += TextTable.render(header: Self.tableHeader, rows: rows)
        let flagged = findings.filter { $0.kind == .engagementRegression }.count
        out += "\n\(flagged) regression\(flagged == 1 ? "" : "s") flagged; differences in points, intervals anytime-valid at the family's 5%.\n"
        return out
    }

    /// The check as an HTML fragment: the series table, and a chart of each flagged series'
    /// daily rates, candidate against baseline.
    public var htmlSection: String {
        var out = "<section class=\"tapwire-regressions\">\n<h2>Release regressions</h2>\n"
        out += "<p>As of \(HTML.escape(Timestamp(microseconds: asOf).description)): \(HTML.escape(headline)).</p>\n"
        if let lookLine { out += "<p class=\"tapwire-look\">\(HTML.escape(lookLine))</p>\n" }
        let rows = tableRows
        if !rows.isEmpty {
            out += "<table>\n<thead><tr>" + Self.tableHeader.map { "<th>\(HTML.escape($0.capitalized))</th>" }.joined() + "</tr></thead>\n<tbody>\n"
            for (row, result) in zip(rows, comparison?.results ?? []) {
                out += "<tr class=\"status-\(result.status)\">" + row.map { "<td>\(HTML.escape($0))</td>" }.joined() + "</tr>\n"
            }
            out += "</tbody>\n</table>\n"
        }
        for finding in comparison?.findings ?? [] {
            let key = RegressionSeriesKey(category: finding.category, outcome: finding.outcome)
            out += RegressionChart(finding: finding, days: days[key] ?? []).svg
        }
        return out + "</section>\n"
    }
}

extension FindingsReport {
    /// `{"app", "asOf", "findings": [...], "mismatches": {"since", "until"}, "regressions": {...}}`:
    /// every family's findings in one list, each in its family's documented shape.
    public var json: JSONValue {
        .object([
            ("app", .string(app)), ("asOf", .string(asOf.description)),
            ("findings", .array(findings.map(\.json))),
            ("mismatches", .object([("since", .string(mismatches.since.description)), ("until", .string(mismatches.until.description))])),
            ("regressions", regressions.json),
        ])
    }

    public static let csvHeader = ["kind", "severity", "category", "action", "appVersions", "baselineVersion", "count",
                                   "candidateRate", "baselineRate", "difference", "differenceLower", "differenceUpper",
                                   "pooledDifference", "since", "message"]

    /// RFC 4180 CSV with a header row, a finding a line; lists are joined with ';'. Figures a
    /// family does not have are empty.
    public var csv: String {
        var out = Self.csvHeader.joined(separator: ",") + "\r\n"
        func n(_ x: Double) -> String { String(Rounding.round(x, digits: 6)) }
        for f in findings {
            var count = "", baseline = "", rates = ["", "", "", "", "", ""]
            switch f.evidence {
            case .mismatch(let m): count = String(m.count)
            case .regression(let r):
                let e = r.atDetection
                baseline = r.baselineVersion
                rates = [n(e.candidate.rate), n(e.baseline.rate), n(e.difference), n(e.anytimeValid.lower), n(e.anytimeValid.upper),
                         n(e.pooledDifference)]
            case .manifestChange: break
            }
            let fields = [f.kind.rawValue, f.severity.rawValue, f.subject.category, f.subject.action ?? "",
                          f.subject.appVersions.joined(separator: ";"), baseline, count] + rates
                + [f.since?.description ?? "", f.message]
            out += fields.map(CSVField.escape).joined(separator: ",") + "\r\n"
        }
        return out
    }

    /// The mismatch table, then the regression check, then a line that counts every finding.
    public var table: String {
        var out = mismatches.table + "\n" + regressions.table
        let summary = countsBySeverity.filter { $0.1 > 0 }.map { "\($0.1) \($0.0.rawValue)" }.joined(separator: ", ")
        out += "\n\(findings.count) finding\(findings.count == 1 ? "" : "s")\(summary.isEmpty ? "" : " (\(summary))") for \(app) as of \(asOf.iso8601(fractionDigits: 0)).\n"
        return out
    }

    /// Both families' sections, for embedding (the engagement report's HTML).
    public var htmlSection: String { mismatches.htmlSection + regressions.htmlSection }

    /// A self-contained page (no external assets) around `htmlSection`.
    public var htmlPage: String { Self.page(app: app, title: "Findings", htmlSection) }

    /// A self-contained page around sections of findings: inline style, no script, no external asset.
    public static func page(app: String, title: String, _ sections: String) -> String {
        """
        <!DOCTYPE html>
        <html lang="en"><head><meta charset="utf-8">
        <meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
        <title>Tapwire \(HTML.escape(title.lowercased())): \(HTML.escape(app))</title>
        <style>\(MismatchReport.pageCSS)\(RegressionChart.css)</style></head><body>
        <h1>\(HTML.escape(title)) for \(HTML.escape(app))</h1>
        \(sections)</body></html>

        """
    }
}
