import TapwireCore

// The release-regression family's renderers: the check as JSON (its series and their status), a
// terminal table and HTML with a chart per flagged series, and the evidence's JSON members, with
// the names docs/regressions.md lists. Device-sent identifiers go through the one escaper of each
// kind.

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
                ("findings", .array(findings.map(ReleaseRegressionFamily().json))),
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
