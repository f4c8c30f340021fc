import TapwireCore
import TapwireStore

/// The notifications every rich vs text-only figure is built from, as cells: one side (rich or
/// text-only) of one stratum, category × campaign × app version × platform. A figure over a set
/// (a category, all of them, a `--by` section) is the cells of that set, so an odd cell can only
/// take itself out, never blank the rest (docs/reports.md, "Which notifications a figure counts").
///
/// - A cell with deliveries whose engagement does not exceed them is **used**.
/// - A cell with deliveries and more engaged than delivered is **not meaningful** (responses
///   without their deliveries, or several engaging responses to one notification): it is left
///   out of the pooled and the adjusted figures alike, and its deliveries are reported.
/// - A cell without deliveries (a category posted as `sent` only, a version that never posts
///   `delivered`) has no base: it is left out, and its engaged responses are reported.
struct UpliftCells: Sendable, Equatable {
    /// The 2×2 table of each stratum from its used cells, in stratum order (so the floating-point
    /// sums never depend on hashing). A stratum with one used side is kept: it counts as excluded.
    private(set) var tables: [StratumCounts] = []
    private(set) var rich = StratumSide()
    private(set) var textOnly = StratumSide()
    /// Deliveries in cells whose engagement exceeds them.
    private(set) var notMeaningfulDelivered = 0
    /// Engaged responses in cells without a delivery.
    private(set) var engagedWithoutDeliveries = 0
    /// The same rows day by day (UTC days, in order), each stratum's 2×2 table of that day's
    /// counts: what `AnytimeUplift` accumulates, judging each look's cells on its own totals.
    private(set) var days: [DailyStrata] = []

    struct StratumSide: Sendable, Equatable {
        var delivered = 0
        var engaged = 0
    }

    struct Key: Hashable, Comparable {
        var category, campaign, appVersion, platform: String
        static func < (a: Key, b: Key) -> Bool {
            (a.category, a.campaign, a.appVersion, a.platform) < (b.category, b.campaign, b.appVersion, b.platform)
        }
    }

    init() {}

    /// Rows with the same key (rollup and raw parts, several days) are added before a cell is judged.
    init(_ rows: [ReportStratumRow]) {
        var cells: [Key: (rich: StratumSide, textOnly: StratumSide)] = [:]
        var daily: [Int: [String: StratumCounts]] = [:]
        for row in rows {
            let id = [row.category, row.campaign, row.appVersion, row.platform].joined(separator: "\u{1}")
            var table = daily[row.utcDay, default: [:]][id] ?? StratumCounts(x1: 0, n1: 0, x2: 0, n2: 0)
            if row.hasMedia {
                table.x1 += row.engaged
                table.n1 += row.delivered
            } else {
                table.x2 += row.engaged
                table.n2 += row.delivered
            }
            daily[row.utcDay, default: [:]][id] = table
            let key = Key(category: row.category, campaign: row.campaign, appVersion: row.appVersion, platform: row.platform)
            var pair = cells[key] ?? (StratumSide(), StratumSide())
            if row.hasMedia {
                pair.rich.delivered += row.delivered
                pair.rich.engaged += row.engaged
            } else {
                pair.textOnly.delivered += row.delivered
                pair.textOnly.engaged += row.engaged
            }
            cells[key] = pair
        }
        days = daily.keys.sorted().map { day in
            DailyStrata(day: String(Timestamp(microseconds: Int64(day) * 86_400_000_000).iso8601(fractionDigits: 0).prefix(10)),
                        strata: daily[day]!)
        }
        for key in cells.keys.sorted() {
            guard let pair = cells[key] else { continue }
            let r = use(pair.rich, into: \.rich), t = use(pair.textOnly, into: \.textOnly)
            if r.delivered > 0 || t.delivered > 0 {
                tables.append(StratumCounts(x1: r.engaged, n1: r.delivered, x2: t.engaged, n2: t.delivered))
            }
        }
    }

    /// Adds a cell to its side when it is used, and returns what it contributes (nothing otherwise).
    private mutating func use(_ cell: StratumSide, into side: WritableKeyPath<UpliftCells, StratumSide>) -> StratumSide {
        if cell.delivered == 0 {
            engagedWithoutDeliveries += cell.engaged
            return StratumSide()
        }
        if cell.engaged > cell.delivered {
            notMeaningfulDelivered += cell.delivered
            return StratumSide()
        }
        self[keyPath: side].delivered += cell.delivered
        self[keyPath: side].engaged += cell.engaged
        return cell
    }

    /// Delivered in the strata with both sides: the sample the adjusted difference rests on.
    var contributingDelivered: Int {
        tables.filter(\.contributes).reduce(0) { $0 + $1.n1 + $1.n2 }
    }
}
