import Foundation
import TapwireStatistics

/// The rows by category, with every string replaced by its rank among the sorted distinct values
/// (so order and sums never depend on the rows' order or on hashing), each category's entries
/// sorted by hour, platform, segment, version. Built from hourly rows or from day rows through
/// one `Builder`, so both give the same table.
struct RegressionTable {
    var versions: [String] = []
    var versionIndex: [String: Int] = [:]
    var segments: [String] = []
    /// Versions with at least one delivery.
    var deliveredVersions: Set<String> = []
    var categories: [String: Category] = [:]

    /// One row's cell: a category's hour on one version, platform and segment (rows with the
    /// same keys are separate entries). Its outcome counts are the category's
    /// `counts[slot * width ..< (slot + 1) * width]`.
    struct Entry {
        var hour: Int64
        var platform: Int
        var segment: Int
        var version: Int
        var slot: Int
        var delivered = 0

        /// Hour, then platform, segment and version.
        static func precedes(_ a: Entry, _ b: Entry) -> Bool {
            if a.hour != b.hour { return a.hour < b.hour }
            if a.platform != b.platform { return a.platform < b.platform }
            if a.segment != b.segment { return a.segment < b.segment }
            return a.version < b.version
        }
    }

    struct Category {
        /// Action identifiers seen in the rows, sorted.
        var actions: [String] = []
        var actionIndex: [String: Int] = [:]
        var entries: [Entry] = []
        /// Per entry slot: opens, dismissals, text replies, then the actions in `actions` order.
        var counts: [Int] = []
        var width: Int { 3 + actions.count }
        /// Versions that delivered the category.
        var delivering: Set<String> = []

        func column(of outcome: RegressionOutcome) -> Int? {
            switch outcome {
            case .opens: 0
            case .dismissals: 1
            case .textReplies: 2
            case .action(let identifier): actionIndex[identifier].map { 3 + $0 }
            }
        }

        /// Each (hour, platform, segment) cell in that order, with the outcome in `column` (nil:
        /// none) and the deliveries of the candidate's entries (x1, n1) and the eligible
        /// versions' (x2, n2) summed; other versions' entries are left out.
        func forEachCell(column: Int?, candidate: Int, eligible: [Bool],
                         _ body: (_ hour: Int64, _ stratum: (platform: Int, segment: Int), _ cell: StratumCounts) -> Void) {
            var i = 0
            while i < entries.count {
                let first = entries[i]
                var cell = StratumCounts(x1: 0, n1: 0, x2: 0, n2: 0)
                while i < entries.count, entries[i].hour == first.hour, entries[i].platform == first.platform,
                      entries[i].segment == first.segment {
                    let entry = entries[i]
                    let x = column.map { counts[entry.slot * width + $0] } ?? 0
                    if entry.version == candidate {
                        cell.x1 += x
                        cell.n1 += entry.delivered
                    } else if eligible[entry.version] {
                        cell.x2 += x
                        cell.n2 += entry.delivered
                    }
                    i += 1
                }
                body(first.hour, (first.platform, first.segment), cell)
            }
        }
    }

    /// Numbers strings by first appearance. Versions, platforms and a category's actions are a
    /// handful: compared one by one they cost less than a hash per row.
    private struct Interner {
        var index: [String: Int] = [:]
        var names: [String] = []

        mutating func id(_ name: String) -> Int {
            if names.count <= 8 {
                if let i = names.firstIndex(of: name) { return i }
            } else if let i = index[name] {
                return i
            }
            index[name] = names.count
            names.append(name)
            return names.count - 1
        }

        /// The sorted names, and each first-appearance number's rank among them.
        func ranked() -> (names: [String], rank: [Int]) {
            let order = names.indices.sorted { names[$0].utf8.lexicographicallyPrecedes(names[$1].utf8) }
            var rank = Array(repeating: 0, count: names.count)
            for (r, i) in order.enumerated() { rank[i] = r }
            return (order.map { names[$0] }, rank)
        }
    }

    /// A category while the rows are read: numbers by first appearance, actions apart. Rows
    /// with the same keys stay separate entries: `forEachCell` sums each hour × platform ×
    /// segment's entries anyway, so merging them here would only cost a hash per row.
    private struct Gathering {
        var actions = Interner()
        var entries: [Entry] = []
        /// opens, dismissals, text replies per slot.
        var counts: [Int] = []
        /// (slot, action number, count).
        var actionCounts: [(slot: Int, action: Int, n: Int)] = []
        var delivering: [Bool] = []
    }

    /// Gathers entries one hour cell at a time, then numbers every string by its rank.
    private struct Builder {
        var versionIds = Interner(), platformIds = Interner(), segmentIds = Interner(), categoryIds = Interner()
        var delivered: [Bool] = []
        // Arrays, mutated in place: a category copied out of a dictionary would copy its cells per row.
        var gathering: [Gathering] = []

        /// The numbers of a row's category, version, platform and segment.
        mutating func ids(category: String, version: String, platform: String, segment: String) -> (c: Int, v: Int, p: Int, s: Int) {
            let v = versionIds.id(version)
            if v == delivered.count { delivered.append(false) }
            let c = categoryIds.id(category)
            if c == gathering.count { gathering.append(Gathering()) }
            return (c, v, platformIds.id(platform), segmentIds.id(segment))
        }

        mutating func action(_ identifier: String, category c: Int) -> Int { gathering[c].actions.id(identifier) }

        /// One hour cell; returns its slot, to which `addAction` adds the actions' counts.
        mutating func add(_ ids: (c: Int, v: Int, p: Int, s: Int), hour: Int64, delivered n: Int, opens: Int, dismissals: Int,
                          textReplies: Int) -> Int {
            let c = ids.c
            let slot = gathering[c].entries.count
            gathering[c].entries.append(Entry(hour: hour, platform: ids.p, segment: ids.s, version: ids.v, slot: slot, delivered: n))
            gathering[c].counts.append(opens)
            gathering[c].counts.append(dismissals)
            gathering[c].counts.append(textReplies)
            if n > 0 {
                delivered[ids.v] = true
                while gathering[c].delivering.count <= ids.v { gathering[c].delivering.append(false) }
                gathering[c].delivering[ids.v] = true
            }
            return slot
        }

        mutating func addAction(category c: Int, slot: Int, action: Int, n: Int) {
            gathering[c].actionCounts.append((slot, action, n))
        }

        func table() -> RegressionTable {
            var table = RegressionTable()
            let (versionNames, versionRank) = versionIds.ranked()
            let (_, platformRank) = platformIds.ranked()
            let (segmentNames, segmentRank) = segmentIds.ranked()
            table.versions = versionNames
            table.versionIndex = Dictionary(uniqueKeysWithValues: versionNames.enumerated().map { ($1, $0) })
            table.segments = segmentNames
            for (v, name) in versionIds.names.enumerated() where delivered[v] { table.deliveredVersions.insert(name) }
            for (c, name) in categoryIds.names.enumerated() {
                let g = gathering[c]
                let (actionNames, actionRank) = g.actions.ranked()
                var category = Category()
                category.actions = actionNames
                category.actionIndex = Dictionary(uniqueKeysWithValues: actionNames.enumerated().map { ($1, $0) })
                let width = category.width
                category.counts = Array(repeating: 0, count: g.entries.count * width)
                for slot in g.entries.indices {
                    for k in 0..<3 { category.counts[slot * width + k] = g.counts[3 * slot + k] }
                }
                for (slot, action, n) in g.actionCounts { category.counts[slot * width + 3 + actionRank[action]] += n }
                category.entries = g.entries.map { entry in
                    var ranked = entry
                    ranked.version = versionRank[entry.version]
                    ranked.platform = platformRank[entry.platform]
                    ranked.segment = segmentRank[entry.segment]
                    return ranked
                }
                category.entries.sort(by: Entry.precedes)
                category.delivering = Set(g.delivering.indices.filter { g.delivering[$0] }.map { versionIds.names[$0] })
                table.categories[name] = category
            }
            return table
        }
    }

    private init() {}

    /// One pass over hourly rows, a few comparisons each, then every number replaced by its rank.
    init(rows: [RegressionRow], before asOf: Int64) {
        var builder = Builder()
        for row in rows where row.hour < asOf && !row.appVersion.isEmpty {
            let ids = builder.ids(category: row.category, version: row.appVersion, platform: row.platform, segment: row.segment)
            let slot = builder.add(ids, hour: row.hour, delivered: row.delivered, opens: row.opens, dismissals: row.dismissals,
                                   textReplies: row.textReplies)
            for (action, n) in row.actions {
                builder.addAction(category: ids.c, slot: slot, action: builder.action(action, category: ids.c), n: n)
            }
        }
        self = builder.table()
    }

    /// The same from day rows: each hour with anything counted is one entry, as its hourly row
    /// would be; a row's strings and actions are numbered once for its 24 hours.
    init(days: [RegressionDayRow], before asOf: Int64) {
        var builder = Builder()
        var actionIds: [Int] = []
        // Each hour's entry slot in the current row; -1: none (nothing counted, or at or after asOf).
        var slots = Array(repeating: -1, count: 24)
        for row in days where row.day < asOf && !row.appVersion.isEmpty {
            let ids = builder.ids(category: row.category, version: row.appVersion, platform: row.platform, segment: row.segment)
            actionIds.removeAll(keepingCapacity: true)
            for action in row.actions { actionIds.append(builder.action(action.identifier, category: ids.c)) }
            // The hours with any action counted, one bit each.
            var actionHours: UInt32 = 0
            for action in row.actions {
                for h in 0..<24 where action.counts[h] != 0 { actionHours |= 1 << h }
            }
            let delivered = row.delivered, opens = row.opens, dismissals = row.dismissals, textReplies = row.textReplies
            for h in 0..<24 {
                slots[h] = -1 // every hour reset, none left from the row before
                let hour = row.day + Int64(h) * RollupDeltas.microsecondsPerHour
                guard hour < asOf else { continue }
                guard delivered[h] != 0 || opens[h] != 0 || dismissals[h] != 0 || textReplies[h] != 0 || actionHours & (1 << h) != 0
                else { continue }
                slots[h] = builder.add(ids, hour: hour, delivered: delivered[h], opens: opens[h], dismissals: dismissals[h],
                                       textReplies: textReplies[h])
            }
            // Each action's hours in turn (its array read once, not once per hour).
            for (k, action) in row.actions.enumerated() {
                let counts = action.counts
                for h in 0..<24 where counts[h] != 0 && slots[h] >= 0 {
                    builder.addAction(category: ids.c, slot: slots[h], action: actionIds[k], n: counts[h])
                }
            }
        }
        self = builder.table()
    }
}
