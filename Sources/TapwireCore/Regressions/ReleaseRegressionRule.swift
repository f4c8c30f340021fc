import Foundation
import TapwireStatistics

/// The release-regression rule as a pure function: hourly rows and each version's manifest in,
/// a verdict per category × outcome out (docs/regressions.md).
///
/// - The candidate is the newest version (the highest version number that delivered); the baseline of a series
///   is every other version that has the series' outcome, pooled within each stratum, so each
///   weighs by its deliveries there.
/// - Within a series, only (platform, hour) cells in which both sides delivered are used, and
///   they are compared within strata of platform × UTC day (× the caller's segment) by
///   Mantel–Haenszel, with Sato's variance.
/// - Every hour is a look. A series is flagged at the first look whose anytime-valid interval
///   (Howard et al.'s normal mixture at alpha / series) lies wholly below −minimum drop.
/// - The collectors store its answer once an hour (docs/regressions.md, "Stored looks"): a change
///   to what it answers bumps `RegressionConfiguration.lookFormatVersion`, so no stored look of
///   the old rule is served.
public struct ReleaseRegressionRule: Sendable {
    public var configuration: RegressionConfiguration

    public init(configuration: RegressionConfiguration = .default) {
        precondition(configuration.problem == nil, configuration.problem ?? "")
        self.configuration = configuration
    }

    /// `rows` must hold only events before `asOf` (µs); rows of hours starting at or after it
    /// are ignored. `manifests` maps an app version to the manifest it posted.
    public func evaluate(rows: [RegressionRow], manifests: [String: Manifest], asOf: Int64) -> RegressionEvaluation {
        evaluate(RegressionTable(rows: rows, before: asOf), manifests: manifests, asOf: asOf)
    }

    /// The same verdict from day rows (what the hourly check reads from the release rollups),
    /// with each flagged series' daily totals, what the report charts beside a finding.
    public func evaluate(days: [RegressionDayRow], manifests: [String: Manifest],
                         asOf: Int64) -> (evaluation: RegressionEvaluation, days: [RegressionSeriesKey: [RegressionDay]]) {
        let table = RegressionTable(days: days, before: asOf)
        let evaluation = evaluate(table, manifests: manifests, asOf: asOf)
        var charts: [RegressionSeriesKey: [RegressionDay]] = [:]
        if case .comparison(let comparison) = evaluation {
            for finding in comparison.findings {
                charts[RegressionSeriesKey(category: finding.category, outcome: finding.outcome)] =
                    Self.days(table: table, category: finding.category, outcome: finding.outcome, candidate: comparison.candidateVersion,
                              baselineVersions: finding.baselineVersions)
            }
        }
        return (evaluation, charts)
    }

    func evaluate(_ table: RegressionTable, manifests: [String: Manifest], asOf: Int64) -> RegressionEvaluation {
        let newestFirst = table.deliveredVersions.sorted(by: Self.newer)
        guard let candidate = configuration.candidateVersion ?? newestFirst.first else {
            return .noComparison("no app version delivered before the instant evaluated")
        }
        guard table.deliveredVersions.contains(candidate) else {
            return .noComparison("version \(candidate) delivered nothing before the instant evaluated")
        }
        let baselines = newestFirst.filter { $0 != candidate }
        guard !baselines.isEmpty else {
            return .noComparison("only version \(candidate) delivered: there is no earlier version to compare it with")
        }
        let delivering = table.categories.mapValues(\.delivering)

        // The series: what the candidate has, what is new, what its manifest removed.
        let candidateManifest = manifests[candidate]
        var categories = Set(delivering.filter { $0.value.contains(candidate) }.keys)
        if let candidateManifest {
            categories.formUnion(candidateManifest.categories.map(\.identifier))
            for version in baselines { categories.formUnion(manifests[version]?.categories.map(\.identifier) ?? []) }
        }
        var plans: [SeriesPlan] = []
        for category in categories.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) {
            plans += Self.plan(category: category, candidateManifest: candidateManifest, baselines: baselines, manifests: manifests,
                               delivering: delivering[category] ?? [], candidate: candidate)
        }
        let family = plans.filter { $0.exemption == nil }.count
        let alpha = configuration.familyAlpha / Double(max(1, family))
        let boundary = NormalMixtureBoundary(alpha: alpha, optimizedAt: configuration.tuningEffectiveDeliveries)

        var results: [RegressionSeriesResult] = []
        for plan in plans {
            if let exemption = plan.exemption {
                results.append(RegressionSeriesResult(category: plan.category, outcome: plan.outcome, decision: .exempt(exemption),
                                                      baselineVersions: []))
                continue
            }
            let pooledVersions = baselines.filter { plan.eligible.contains($0) && delivering[plan.category]?.contains($0) == true }
            let decision = decide(plan, table: table, candidate: candidate, pooledVersions: pooledVersions, boundary: boundary,
                                  asOf: asOf)
            results.append(RegressionSeriesResult(category: plan.category, outcome: plan.outcome, decision: decision,
                                                  baselineVersions: pooledVersions))
        }
        return .comparison(RegressionComparison(candidateVersion: candidate, baselineVersions: baselines, asOf: asOf,
                                                seriesInFamily: family, alphaPerSeries: alpha,
                                                candidateManifestMissing: candidateManifest == nil, results: results))
    }

    /// One series' candidate and baseline totals per UTC day, over the cells (hour × platform ×
    /// segment) in which both delivered, from the rows of hours before `asOf`: what the report
    /// charts beside a finding. `baselineVersions` are the versions pooled (the finding's).
    public static func days(rows: [RegressionRow], category: String, outcome: RegressionOutcome, candidate: String,
                            baselineVersions: [String], asOf: Int64) -> [RegressionDay] {
        days(table: RegressionTable(rows: rows, before: asOf), category: category, outcome: outcome, candidate: candidate,
             baselineVersions: baselineVersions)
    }

    static func days(table: RegressionTable, category: String, outcome: RegressionOutcome, candidate: String,
                     baselineVersions: [String]) -> [RegressionDay] {
        guard let entries = table.categories[category], let candidateIndex = table.versionIndex[candidate] else { return [] }
        let baseline = Set(baselineVersions)
        var byDay: [RegressionDay] = []
        entries.forEachCell(column: entries.column(of: outcome), candidate: candidateIndex,
                            eligible: table.versions.map { baseline.contains($0) }) { hour, _, cell in
            guard cell.n1 > 0, cell.n2 > 0 else { return }
            let day = RollupDeltas.floor(hour, RollupDeltas.microsecondsPerDay)
            if byDay.last?.day != day {
                byDay.append(RegressionDay(day: day, candidate: RegressionSide(delivered: 0, count: 0),
                                           baseline: RegressionSide(delivered: 0, count: 0)))
            }
            byDay[byDay.count - 1].candidate.delivered += cell.n1
            byDay[byDay.count - 1].candidate.count += cell.x1
            byDay[byDay.count - 1].baseline.delivered += cell.n2
            byDay[byDay.count - 1].baseline.count += cell.x2
        }
        return byDay
    }

    /// Version order: numbers compared as numbers ("1.10" after "1.9"), the usual
    /// CFBundleShortVersionString. Not the first delivery seen: a version that delivers little
    /// (the stragglers of an old release) may first appear in the rows after the newest one.
    public static func newer(_ a: String, _ b: String) -> Bool {
        switch a.compare(b, options: .numeric) {
        case .orderedDescending: true
        case .orderedAscending: false
        case .orderedSame: a.utf8.lexicographicallyPrecedes(b.utf8) // "1.0" and "1.00": any fixed order
        }
    }

    // MARK: - Which series, against which versions

    struct SeriesPlan {
        var category: String
        var outcome: RegressionOutcome
        /// Baseline versions that have the outcome.
        var eligible: Set<String>
        var exemption: RegressionExemption?
    }

    /// The outcomes a category's manifest entry makes measurable: opens always, each registered
    /// action, text replies with a text-input action, dismissals under customDismissAction.
    static func outcomes(of category: ManifestCategory?) -> [RegressionOutcome] {
        var outcomes: [RegressionOutcome] = [.opens]
        guard let category else { return outcomes }
        outcomes += category.actions.map { .action($0.identifier) }
        if category.actions.contains(where: \.textInput) { outcomes.append(.textReplies) }
        if category.hasCustomDismissAction { outcomes.append(.dismissals) }
        return outcomes
    }

    static func plan(category: String, candidateManifest: Manifest?, baselines: [String], manifests: [String: Manifest],
                     delivering: Set<String>, candidate: String) -> [SeriesPlan] {
        let registeredBy: [(version: String, entry: ManifestCategory)] = baselines.compactMap { version in
            manifests[version]?.category(category).map { (version, $0) }
        }
        let candidateEntry = candidateManifest?.category(category)
        let candidateDelivers = delivering.contains(candidate)
        // Registered by earlier versions, gone from the candidate's manifest and never delivered by it.
        if candidateManifest != nil, candidateEntry == nil, !candidateDelivers {
            guard !registeredBy.isEmpty else { return [] }
            return [SeriesPlan(category: category, outcome: .opens, eligible: [],
                               exemption: .removedFromManifest(versions: registeredBy.map(\.version)))]
        }
        let own = outcomes(of: candidateEntry)
        let knownBefore = !registeredBy.isEmpty || baselines.contains(where: delivering.contains)
        if !knownBefore {
            return own.map { SeriesPlan(category: category, outcome: $0, eligible: [], exemption: .newCategory) }
        }
        var plans: [SeriesPlan] = own.map { outcome in
            let eligible: Set<String>
            if outcome == .opens {
                eligible = Set(baselines)
            } else {
                eligible = Set(registeredBy.filter { outcomes(of: $0.entry).contains(outcome) }.map(\.version))
            }
            return SeriesPlan(category: category, outcome: outcome, eligible: eligible, exemption: eligible.isEmpty ? .newOutcome : nil)
        }
        if candidateManifest != nil {
            var removed: [RegressionOutcome: [String]] = [:]
            for (version, entry) in registeredBy {
                for outcome in outcomes(of: entry) where !own.contains(outcome) { removed[outcome, default: []].append(version) }
            }
            plans += removed.keys.sorted().map {
                SeriesPlan(category: category, outcome: $0, eligible: [], exemption: .removedFromManifest(versions: removed[$0]!))
            }
        }
        return plans.sorted { $0.outcome < $1.outcome }
    }

    // MARK: - The looks of one series

    func decide(_ plan: SeriesPlan, table: RegressionTable, candidate: String, pooledVersions: [String],
                boundary: NormalMixtureBoundary, asOf: Int64) -> RegressionDecision {
        guard let category = table.categories[plan.category], let candidateIndex = table.versionIndex[candidate] else {
            return .notEnoughData(.noCandidateDeliveries, candidateDelivered: 0, baselineDelivered: 0)
        }
        let eligible = table.versions.map { plan.eligible.contains($0) }
        // Both sides per (hour, platform, segment), in that order; only cells where both delivered are used.
        var used: [(hour: Int64, stratum: Int, counts: StratumCounts)] = []
        var candidateDelivered = 0, baselineDelivered = 0
        let strataPerPlatform = table.segments.count
        category.forEachCell(column: category.column(of: plan.outcome), candidate: candidateIndex, eligible: eligible) { hour, stratum, cell in
            candidateDelivered += cell.n1
            baselineDelivered += cell.n2
            if cell.n1 > 0, cell.n2 > 0 {
                used.append((hour, stratum.platform * strataPerPlatform + stratum.segment, cell))
            }
        }
        guard !used.isEmpty else {
            // Deliveries over all hours here: none of them is shared.
            return .notEnoughData(candidateDelivered > 0 ? .noSharedHours : .noCandidateDeliveries,
                                  candidateDelivered: candidateDelivered, baselineDelivered: baselineDelivered)
        }

        var sequence = SequentialMantelHaenszel()
        var day = Int64.min
        // Evidence is built for two looks only: the first crossing and the latest.
        var first: RegressionEvidence?
        var latest: (snapshot: SequentialMantelHaenszel.Snapshot, lookAt: Int64)?
        var shortfall: RegressionShortfall?
        var index = 0
        while index < used.count {
            let hour = used[index].hour
            let hourDay = RollupDeltas.floor(hour, RollupDeltas.microsecondsPerDay)
            if hourDay != day {
                sequence.closeOpenStrata() // a stratum is platform × segment × UTC day
                day = hourDay
            }
            while index < used.count, used[index].hour == hour {
                sequence.add(used[index].counts, to: used[index].stratum)
                index += 1
            }
            let snapshot = sequence.current
            if let missing = insufficiency(snapshot.pooled) {
                shortfall = missing
                latest = nil
                continue
            }
            guard let look = snapshot.interval(boundary: boundary) else { continue }
            let lookAt = min(hour + RollupDeltas.microsecondsPerHour, asOf)
            shortfall = nil
            latest = (snapshot, lookAt)
            // As `RegressionEvidence.crossesMinimumDrop`, without building the evidence.
            if first == nil, look.anytimeValid.upper < -configuration.minimumRelativeDrop * Self.referenceRate(snapshot) {
                first = Self.evidence(snapshot, boundary: boundary, relativeDrop: configuration.minimumRelativeDrop, lookAt: lookAt)
            }
        }
        let latestEvidence = latest.flatMap {
            Self.evidence($0.snapshot, boundary: boundary, relativeDrop: configuration.minimumRelativeDrop, lookAt: $0.lookAt)
        }
        if let first {
            let finding = RegressionFinding(category: plan.category, outcome: plan.outcome, candidateVersion: candidate,
                                            baselineVersion: pooledVersions.first ?? "", baselineVersions: pooledVersions,
                                            detectedAt: first.lookAt, atDetection: first, latest: latestEvidence ?? first)
            return .flagged(finding)
        }
        if let latestEvidence, shortfall == nil { return .fine(latestEvidence) }
        let pooled = sequence.current.pooled
        return .notEnoughData(shortfall ?? .noSharedHours, candidateDelivered: pooled.n1, baselineDelivered: pooled.n2)
    }

    /// Nil when a look may count: enough deliveries on each side, and Cochran's rule (each side
    /// expects at least `expectedCount` responses and non-responses under the pooled rate).
    func insufficiency(_ pooled: StratumCounts) -> RegressionShortfall? {
        let minimum = configuration.minimumSample
        if pooled.n1 < minimum.perSide || pooled.n2 < minimum.perSide {
            return .belowMinimumDeliveries(candidate: pooled.n1, baseline: pooled.n2, required: minimum.perSide)
        }
        let rate = Double(pooled.x1 + pooled.x2) / Double(pooled.n1 + pooled.n2)
        let expected = Double(min(pooled.n1, pooled.n2)) * min(rate, 1 - rate)
        if expected < minimum.expectedCount { return .expectedCountBelowMinimum(expected: expected, required: minimum.expectedCount) }
        return nil
    }

    /// The baseline's rate standardised to the strata's weights: what the minimum drop is a share of.
    static func referenceRate(_ snapshot: SequentialMantelHaenszel.Snapshot) -> Double {
        snapshot.sums.secondGroupWeighted / snapshot.sums.weights
    }

    static func evidence(_ snapshot: SequentialMantelHaenszel.Snapshot, boundary: NormalMixtureBoundary, relativeDrop: Double,
                         lookAt: Int64) -> RegressionEvidence? {
        guard let estimate = snapshot.estimate(boundary: boundary) else { return nil }
        let reference = referenceRate(snapshot)
        let pooled = estimate.pooled
        return RegressionEvidence(lookAt: lookAt, difference: estimate.difference, anytimeValid: estimate.anytimeValid,
                                  fixedHorizon95: estimate.fixedHorizon95, variance: estimate.variance,
                                  pooledDifference: estimate.pooledDifference,
                                  candidate: RegressionSide(delivered: pooled.n1, count: pooled.x1),
                                  baseline: RegressionSide(delivered: pooled.n2, count: pooled.x2),
                                  referenceRate: reference, minimumDrop: relativeDrop * reference,
                                  effectiveDeliveries: estimate.effectiveTrials, strata: estimate.mantelHaenszel.strata,
                                  notMeaningfulDeliveries: snapshot.notMeaningfulTrials)
    }

}

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
