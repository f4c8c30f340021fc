import TapwireCore
import TapwireStore

/// A column of a text table: a header and a cell per row, aligned left or right.
struct Column: Sendable {
    var header: String
    var width: Int
    var right: Bool
    var cell: @Sendable (CategoryEngagement) -> String
}

/// The columns both the terminal table and Markdown show, so the two read alike.
enum ReportColumns {
    static let engagement: [Column] = [
        Column(header: "Category", width: 15, right: false) { Fmt.fit($0.displayName, 15) },
        Column(header: "Delivered", width: 9, right: true) { $0.base == .sent ? Fmt.dash : Fmt.count($0.delivered) },
        Column(header: "Sent", width: 7, right: true) { $0.sent > 0 ? Fmt.count($0.sent) : Fmt.dash },
        Column(header: "Opens", width: 7, right: true) { Fmt.count($0.opens) },
        Column(header: "Actions", width: 7, right: true) { Fmt.count($0.engaged - $0.opens) },
        Column(header: "Engaged", width: 7, right: true) {
            $0.engagementNotMeaningful != nil ? Fmt.notMeaningful : Fmt.percent($0.engagementRate) + ($0.base == .sent ? "*" : "")
        },
        Column(header: "95% CI", width: 12, right: true) { Fmt.interval($0.engagementCI95) },
        Column(header: "Dismiss", width: 7, right: true) { Fmt.dismiss($0.dismiss) },
        Column(header: "Reply", width: 7, right: true) { Fmt.replyLengths($0.textReplies) },
        Column(header: "TTR p50/90", width: 11, right: true) {
            $0.timeToResponse.samples == 0 ? Fmt.dash : Fmt.seconds($0.timeToResponse.p50Seconds) + "/" + Fmt.seconds($0.timeToResponse.p90Seconds)
        },
    ]

    static let uplift: [Column] = [
        Column(header: "Category", width: 15, right: false) { Fmt.fit($0.displayName, 15) },
        Column(header: "Rich", width: 7, right: true) { Fmt.sideRate($0.uplift.rich) },
        Column(header: "95% CI", width: 12, right: true) { Fmt.interval($0.uplift.rich.ci95) },
        Column(header: "Text-only", width: 9, right: true) { Fmt.sideRate($0.uplift.textOnly) },
        Column(header: "95% CI", width: 12, right: true) { Fmt.interval($0.uplift.textOnly.ci95) },
        Column(header: "Pooled diff", width: 12, right: true) {
            $0.uplift.sufficient ? Fmt.points($0.uplift.differencePoints) : "insufficient"
        },
        Column(header: "95% CI (pp)", width: 14, right: true) { Fmt.interval($0.uplift.differenceCIPoints, scale: 1, signed: true) },
        Column(header: "Lift", width: 5, right: true) { Fmt.lift($0.uplift.relativeLift) },
        Column(header: "p", width: 6, right: true) { Fmt.pValue($0.uplift.pValue) },
    ]

    /// The difference adjusted for the strata (`EngagementReportBuilder.strataDimensions`), beside the pooled one.
    static let adjusted: [Column] = [
        Column(header: "Category", width: 15, right: false) { Fmt.fit($0.displayName, 15) },
        Column(header: "Pooled", width: 10, right: true) { $0.uplift.sufficient ? Fmt.points($0.uplift.differencePoints) : Fmt.dash },
        Column(header: "Adjusted", width: 12, right: true) {
            $0.uplift.adjusted.sufficient ? Fmt.points($0.uplift.adjusted.difference.map { $0 * 100 }) : "insufficient"
        },
        Column(header: "95% CI (pp)", width: 14, right: true) { Fmt.interval($0.uplift.adjusted.ci95, signed: true) },
        Column(header: "p", width: 6, right: true) { Fmt.pValue($0.uplift.adjusted.pValue) },
        Column(header: "Strata", width: 6, right: true) { Fmt.count($0.uplift.adjusted.strata) },
        Column(header: "Excluded", width: 9, right: true) { Fmt.count($0.uplift.adjusted.excludedDelivered) },
        Column(header: "Confounded", width: 10, right: false) { $0.uplift.confounded ? Fmt.confoundedMarker : "" },
    ]

    /// How long until the difference is known.
    static let detection: [Column] = [
        Column(header: "Category", width: 15, right: false) { Fmt.fit($0.displayName, 15) },
        Column(header: "Detectable", width: 10, right: true) {
            $0.uplift.detection.minimumDetectableDifference.map { Fmt.fixed($0 * 100, 1) + " pp" } ?? Fmt.dash
        },
        Column(header: "Target", width: 12, right: true) { Fmt.target($0.uplift.detection) },
        Column(header: "Anytime CI", width: 14, right: true) { Fmt.interval($0.uplift.adjusted.anytime.ci95, signed: true) },
        Column(header: "Decided on", width: 10, right: true) { Fmt.decidedOn($0.uplift.adjusted) },
        Column(header: "When known", width: 34, right: false) { Fmt.fit(Fmt.whenKnown($0.uplift.detection), 34) },
    ]

    static let detail: [Column] = [
        Column(header: "Category", width: 15, right: false) { Fmt.fit($0.displayName, 15) },
        Column(header: "Rich n", width: 9, right: true) { Fmt.count($0.uplift.rich.delivered) },
        Column(header: "Text n", width: 9, right: true) { Fmt.count($0.uplift.textOnly.delivered) },
        Column(header: "Media fail", width: 10, right: true) {
            $0.media.requested == 0 ? Fmt.dash : Fmt.percent($0.media.rate)
        },
        Column(header: "Replies", width: 7, right: true) { Fmt.count($0.textReplies.count) },
        Column(header: "Top actions (count, rate)", width: 40, right: false) { c in
            let text = c.actions.prefix(3).map { "\($0.identifier) \(Fmt.count($0.count)) \(Fmt.percent($0.rate))" }.joined(separator: ", ")
            return Fmt.fit(text.isEmpty ? Fmt.dash : text, 40)
        },
    ]
}

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
        out.append("")
        for note in Fmt.notes + [Fmt.sampleNote(report), Fmt.resolutionNote()] { out.append(contentsOf: wrap(note, 100)) }
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
    }

    func table(_ out: inout [String], _ columns: [Column], _ rows: [CategoryEngagement]) {
        func line(_ cells: [String]) -> String {
            zip(columns, cells).map { column, cell in
                let padding = String(repeating: " ", count: max(0, column.width - cell.count))
                return column.right ? padding + cell : cell + padding
            }.joined(separator: " ").trailingSpacesRemoved
        }
        out.append(line(columns.map(\.header)))
        out.append(columns.map { String(repeating: "─", count: $0.width) }.joined(separator: " "))
        for (i, row) in rows.enumerated() {
            if i == rows.count - 1, rows.count > 1 {
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
        out.append("## Notes")
        out.append("")
        for note in Fmt.notes + [Fmt.sampleNote(report), Fmt.resolutionNote()] { out.append("- " + escape(note)) }
        return out.joined(separator: "\n") + "\n"
    }

    func section(_ out: inout [String], _ categories: [CategoryEngagement], _ overall: CategoryEngagement, level: String) {
        let rows = categories + [overall]
        for (title, columns) in [("Engagement by category", ReportColumns.engagement),
                                 ("Rich vs text-only (pooled)", ReportColumns.uplift),
                                 ("Rich vs text-only adjusted for \(EngagementReportBuilder.strataDimensions)", ReportColumns.adjusted),
                                 ("How long until the difference is known", ReportColumns.detection),
                                 ("Sample sizes, media failures, actions", ReportColumns.detail)] {
            out.append("\(level) \(title)")
            out.append("")
            out.append("| " + columns.map(\.header).joined(separator: " | ") + " |")
            out.append("|" + columns.map { $0.right ? " ---: |" : " --- |" }.joined())
            for (i, row) in rows.enumerated() {
                let cells = columns.map { escape($0.cell(row)) }
                let bold = i == rows.count - 1 && rows.count > 1
                out.append("| " + cells.map { bold && !$0.isEmpty ? "**\($0)**" : $0 }.joined(separator: " | ") + " |")
            }
            out.append("")
            if title.hasPrefix("Rich vs text-only adjusted") {
                for line in Fmt.rowNotes(rows) { out.append("- " + escape(line)) }
                if !Fmt.rowNotes(rows).isEmpty { out.append("") }
            }
        }
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

/// One CSV row per category (and one for all categories, and per group with --by), quoted and
/// formula-guarded by `CSVField.escape`. Rates are fractions; difference columns (`_pp`) are percentage points.
public struct CSVReportRenderer: Sendable {
    public init() {}

    public static let header = [
        "group_dimension", "group_value", "category", "delivered", "sent", "base", "opens", "actions_total", "engaged",
        "engagement_rate", "engagement_ci_low", "engagement_ci_high", "text_replies", "reply_p50_length", "reply_p90_length",
        "dismiss_measurable", "dismissals", "dismiss_rate", "rich_delivered", "rich_engaged", "rich_rate", "rich_ci_low",
        "rich_ci_high", "text_delivered", "text_engaged", "text_rate", "text_ci_low", "text_ci_high", "uplift_sufficient",
        "difference_pp", "difference_ci_low_pp", "difference_ci_high_pp", "relative_lift", "p_value", "media_requested",
        "media_not_shown", "media_failure_rate", "ttr_p50_seconds", "ttr_p90_seconds", "actions",
        "adjusted_sufficient", "adjusted_difference_pp", "adjusted_ci_low_pp", "adjusted_ci_high_pp", "adjusted_p_value",
        "adjusted_strata", "excluded_delivered", "confounded", "minimum_detectable_difference_pp", "target_difference_pp",
        "days_to_detect", "engagement_not_meaningful", "rich_not_meaningful", "text_not_meaningful",
        "uplift_not_meaningful_delivered", "uplift_engaged_without_deliveries", "excluded_categories",
        "adjusted_anytime_ci_low_pp", "adjusted_anytime_ci_high_pp", "adjusted_decided_on",
    ]

    public func render(_ report: EngagementReport) -> String {
        var lines = [Self.header.joined(separator: ",")]
        for row in report.categories + [report.overall] { lines.append(line("", "", row)) }
        for group in report.groups {
            for row in group.categories + [group.overall] { lines.append(line(group.dimension.rawValue, group.value, row)) }
        }
        return lines.joined(separator: "\r\n") + "\r\n"
    }

    func line(_ dimension: String, _ value: String, _ c: CategoryEngagement) -> String {
        func n(_ v: Double?) -> String { v.map { String(Rounding.round($0, digits: 6)) } ?? "" }
        func i(_ v: Int?) -> String { v.map(String.init) ?? "" }
        let fields: [String] = [
            dimension, value, c.category ?? "*", String(c.delivered), String(c.sent), c.base.rawValue, String(c.opens),
            String(c.engaged - c.opens), String(c.engaged), n(c.engagementRate), n(c.engagementCI95?.lower), n(c.engagementCI95?.upper),
            String(c.textReplies.count), i(c.textReplies.p50Length), i(c.textReplies.p90Length),
            c.dismiss.measurable ? "true" : "false", i(c.dismiss.count), n(c.dismiss.rate),
            String(c.uplift.rich.delivered), String(c.uplift.rich.engaged), n(c.uplift.rich.rate), n(c.uplift.rich.ci95?.lower),
            n(c.uplift.rich.ci95?.upper), String(c.uplift.textOnly.delivered), String(c.uplift.textOnly.engaged),
            n(c.uplift.textOnly.rate), n(c.uplift.textOnly.ci95?.lower), n(c.uplift.textOnly.ci95?.upper),
            c.uplift.sufficient ? "true" : "false", n(c.uplift.differencePoints), n(c.uplift.differenceCIPoints?.lower),
            n(c.uplift.differenceCIPoints?.upper), n(c.uplift.relativeLift), c.uplift.pValue.map { String($0) } ?? "",
            String(c.media.requested), String(c.media.notShown), n(c.media.rate),
            n(c.timeToResponse.p50Seconds), n(c.timeToResponse.p90Seconds),
            c.actions.map { "\($0.identifier)=\($0.count)" }.joined(separator: ";"),
            c.uplift.adjusted.sufficient ? "true" : "false", n(c.uplift.adjusted.difference.map { $0 * 100 }),
            n(c.uplift.adjusted.ci95.map { $0.lower * 100 }), n(c.uplift.adjusted.ci95.map { $0.upper * 100 }),
            c.uplift.adjusted.pValue.map { String($0) } ?? "", String(c.uplift.adjusted.strata),
            String(c.uplift.adjusted.excludedDelivered), c.uplift.confounded ? "true" : "false",
            n(c.uplift.detection.minimumDetectableDifference.map { $0 * 100 }), n(c.uplift.detection.target * 100),
            c.uplift.detection.daysToDetect.map { String(Rounding.round($0, digits: 1)) } ?? "",
            // rich_not_meaningful and text_not_meaningful stay for existing readers; a side is the sum
            // of its used cells, so they are always empty (the next two columns say what was left out).
            c.engagementNotMeaningful ?? "", "", "",
            String(c.uplift.notMeaningfulDelivered), String(c.uplift.engagedWithoutDeliveries),
            c.excludedCategories.map { "\($0.category)=\($0.reason.rawValue)" }.joined(separator: ";"),
            n(c.uplift.adjusted.anytime.ci95.map { $0.lower * 100 }), n(c.uplift.adjusted.anytime.ci95.map { $0.upper * 100 }),
            c.uplift.adjusted.anytime.decidedOn ?? "",
        ]
        return fields.map(CSVField.escape).joined(separator: ",")
    }
}

extension String {
    var trailingSpacesRemoved: String {
        var s = Substring(self)
        while s.last == " " { s.removeLast() }
        return String(s)
    }
}

import Foundation
