import TapwireCore
import TapwireStatistics
@testable import TapwireReport

/// Report data for the builder's tests, written as the rows of one table keyed by every
/// dimension and local day, then turned into what the database hands the builder (totals, the
/// engagement line, the dismiss base, the strata's sums per UTC day): the same rows the store
/// would read, without a database. Days here are whole UTC days (the tests' scopes are in UTC).
struct ReportCountRow {
    var group = ""
    var appVersion = ""
    /// The local date, YYYY-MM-DD, in UTC.
    var day: String
    var category: String
    var campaign = ""
    var platform = ""
    var hasMedia: Bool
    var delivered = 0
    var sent = 0
    var mediaRequested = 0
    var opens = 0
    var dismissals = 0
    var actions = 0
    var replies = 0
}

extension ReportData {
    static func utcDay(_ date: String) -> Int { Int((Timestamp(iso8601: date)?.microseconds ?? 0) / 86_400_000_000) }

    /// `grouped`: whether the rows' groups are `--by` values (the whole report then has strata
    /// sums of its own, over every group's cells).
    init(days: [String], counts: [ReportCountRow], actions: [ReportActionRow] = [], histograms: [ReportHistogramRow] = [],
         grouped: Bool = false) {
        self.init(days: days)
        self.actions = actions
        self.histograms = histograms
        struct Key: Hashable { var group: String, category: String, version: String, day: String, hasMedia: Bool }
        for row in counts {
            var c = RollupDeltas.Counts()
            c.delivered = Int64(row.delivered)
            c.sent = Int64(row.sent)
            c.mediaRequested = Int64(row.mediaRequested)
            c.opens = Int64(row.opens)
            c.dismissals = Int64(row.dismissals)
            c.actions = Int64(row.actions)
            c.replies = Int64(row.replies)
            totals.append(ReportTotalsRow(group: row.group, category: row.category, hasMedia: row.hasMedia, counts: c))
            trend.append(ReportTrendRow(group: row.group, category: row.category, day: row.day, delivered: row.delivered,
                                        engaged: row.opens + row.actions))
            dismiss.append(ReportDismissRow(group: row.group, category: row.category, appVersion: row.appVersion, delivered: row.delivered,
                                            dismissals: row.dismissals))
        }
        uplift = Self.strataSums(counts, group: { $0.group }, wholeReport: !grouped)
        if grouped { uplift += Self.strataSums(counts, group: { _ in "" }, wholeReport: true) }
    }

    /// Each stratum (category × campaign × platform × UTC day) from its cells, the rows of every
    /// version added, summed per group, category and day as the database sums them.
    static func strataSums(_ counts: [ReportCountRow], group: (ReportCountRow) -> String, wholeReport: Bool) -> [ReportUpliftDayRow] {
        struct Stratum: Hashable, Comparable {
            var group: String, category: String, day: Int, campaign: String, platform: String
            static func < (a: Stratum, b: Stratum) -> Bool {
                (a.group, a.category, a.day, a.campaign, a.platform) < (b.group, b.category, b.day, b.campaign, b.platform)
            }
        }
        var cells: [Stratum: (rich: (delivered: Int, engaged: Int), text: (delivered: Int, engaged: Int))] = [:]
        for row in counts {
            let key = Stratum(group: group(row), category: row.category, day: utcDay(row.day), campaign: row.campaign, platform: row.platform)
            var cell = cells[key] ?? ((0, 0), (0, 0))
            if row.hasMedia {
                cell.rich = (cell.rich.delivered + row.delivered, cell.rich.engaged + row.opens + row.actions)
            } else {
                cell.text = (cell.text.delivered + row.delivered, cell.text.engaged + row.opens + row.actions)
            }
            cells[key] = cell
        }
        var sums: [Stratum: UpliftDay] = [:]
        for key in cells.keys.sorted() {
            let cell = cells[key]!
            // A stratum with neither a delivery nor an engaged response has no row in the database.
            guard cell.rich.delivered + cell.rich.engaged + cell.text.delivered + cell.text.engaged > 0 else { continue }
            let day = Stratum(group: key.group, category: key.category, day: key.day, campaign: "", platform: "")
            sums[day, default: UpliftDay()].add(rich: cell.rich, textOnly: cell.text)
        }
        return sums.keys.sorted().map { key in
            ReportUpliftDayRow(wholeReport: wholeReport, group: key.group, category: key.category, utcDay: key.day, day: sums[key]!)
        }
    }
}
