import TapwireCore
import TapwireStatistics
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

    init() {}

    /// `numbered` holds rows of one set, each with its stratum's number (`StratumNumbering`).
    /// Rows with the same stratum (rollup and raw parts, several days) are added before a cell is
    /// judged; the strata are summed in the order of their numbers, which is their key order.
    init(_ numbered: [(row: ReportStratumRow, stratum: Int)], strata count: Int) {
        var rich = [StratumSide](repeating: StratumSide(), count: count)
        var textOnly = [StratumSide](repeating: StratumSide(), count: count)
        var seen = [Bool](repeating: false, count: count)
        // Day by day, each day's tables in an array by stratum number: a row costs one lookup
        // of its day, not two dictionary updates.
        var dayPosition: [Int: Int] = [:]
        var dayNumbers: [Int] = []
        var daily: [[StratumCounts?]] = []
        for (row, id) in numbered {
            seen[id] = true
            let d: Int
            if let known = dayPosition[row.utcDay] {
                d = known
            } else {
                d = dayNumbers.count
                dayPosition[row.utcDay] = d
                dayNumbers.append(row.utcDay)
                daily.append([StratumCounts?](repeating: nil, count: count))
            }
            var table = daily[d][id] ?? StratumCounts(x1: 0, n1: 0, x2: 0, n2: 0)
            if row.hasMedia {
                table.x1 += row.engaged
                table.n1 += row.delivered
                rich[id].delivered += row.delivered
                rich[id].engaged += row.engaged
            } else {
                table.x2 += row.engaged
                table.n2 += row.delivered
                textOnly[id].delivered += row.delivered
                textOnly[id].engaged += row.engaged
            }
            daily[d][id] = table
        }
        days = dayNumbers.indices.sorted { dayNumbers[$0] < dayNumbers[$1] }.map { d in
            var strata: [Int: StratumCounts] = [:]
            for (id, table) in daily[d].enumerated() { if let table { strata[id] = table } }
            return DailyStrata(day: String(Timestamp.startOfUTCDay(Int64(dayNumbers[d])).iso8601(fractionDigits: 0).prefix(10)), strata: strata)
        }
        for id in 0..<count where seen[id] {
            let r = use(rich[id], into: \.rich), t = use(textOnly[id], into: \.textOnly)
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

/// Numbers the strata (category × campaign × app version × platform) of a section's rows in key
/// order, once: the cells of every category and of the overall then work on the numbers, instead
/// of hashing and comparing four strings per row at every level and every daily look.
struct StratumNumbering: Sendable {
    /// The stratum number of each row, in the rows' order.
    let ids: [Int]
    /// How many strata there are.
    let count: Int

    private struct Key: Hashable {
        var category, campaign, appVersion, platform: String
    }

    init(_ rows: [ReportStratumRow]) {
        var provisional: [Key: Int] = [:]
        var keys: [Key] = []
        var firstSeen: [Int] = []
        firstSeen.reserveCapacity(rows.count)
        for row in rows {
            let key = Key(category: row.category, campaign: row.campaign, appVersion: row.appVersion, platform: row.platform)
            if let id = provisional[key] {
                firstSeen.append(id)
            } else {
                provisional[key] = keys.count
                firstSeen.append(keys.count)
                keys.append(key)
            }
        }
        let order = keys.indices.sorted {
            let a = keys[$0], b = keys[$1]
            return (a.category, a.campaign, a.appVersion, a.platform) < (b.category, b.campaign, b.appVersion, b.platform)
        }
        var rank = [Int](repeating: 0, count: keys.count)
        for (position, id) in order.enumerated() { rank[id] = position }
        ids = firstSeen.map { rank[$0] }
        count = keys.count
    }
}
