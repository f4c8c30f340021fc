import TapwireCore
import TapwireStatistics
import TapwireStore

/// Reads what a report needs from PostgreSQL (sql/queries/report_*.sql), in one snapshot: from the
/// rollups as `ReportPlan` decides for an unfiltered report, from the events of the range for a
/// filtered or grouped one and for the raw-events oracle (docs/reports.md, "What each report reads").
public struct PostgresReportReader: ReportReading {
    /// Longer ranges are refused: ten years of days is the most one report walks.
    public static let maxRangeDays: Int64 = 3_700

    let connection: PostgresConnection
    /// The manifests decoded before, by content: a collector's reports decode each manifest once.
    let manifestCache: ManifestCache?
    /// How it counts every acknowledged event: its own fold, or the collector's shared one.
    let fold: any ReadFold

    public init(connection: PostgresConnection, fold: any ReadFold = OwnFold(), manifestCache: ManifestCache? = nil) {
        self.connection = connection
        self.fold = fold
        self.manifestCache = manifestCache
    }

    /// Local-day edges in `timeZone`: the midnight starting `fromDate`, the midnight after
    /// `toDate`, the midnight starting `sinceDays` days ending today, and now (the server clock).
    public func dayEdges(timeZone: String, fromDate: String?, toDate: String?, sinceDays: Int?) throws(ReportFailure)
        -> (from: Timestamp?, to: Timestamp?, since: Timestamp?, now: Timestamp) {
        let result: QueryResult
        do throws(DatabaseError) {
            result = try connection.query(EmbeddedSQL.reportRange, [timeZone, fromDate, toDate, sinceDays.map(String.init)])
        } catch {
            throw Self.translate(error, timeZone: timeZone)
        }
        guard let row = result.namedRows.first, let now = PostgresValue.timestamp(microseconds: row["now"]) else {
            throw .database(DatabaseError(.unexpectedResult, "report_range returned no row", query: EmbeddedSQL.reportRange.name))
        }
        return (PostgresValue.timestamp(microseconds: row["from_start"]), PostgresValue.timestamp(microseconds: row["to_end"]),
                PostgresValue.timestamp(microseconds: row["since_start"]), now)
    }

    public func manifests(appId: Int64) throws(ReportFailure) -> [String: Manifest] {
        do {
            return try ManifestStore().currentManifests(appId: appId, on: connection, cache: manifestCache)
        } catch {
            throw .database(error)
        }
    }

    /// A database error the caller caused (a zone PostgreSQL does not know, a date out of range)
    /// becomes the request's error; anything else stays the database's.
    static func translate(_ error: DatabaseError, timeZone: String) -> ReportFailure {
        if error.isInvalidParameterValue {
            return .invalid(ReportError(.unknownTimeZone,
                                        "unknown time zone \"\(timeZone)\"; use an IANA name such as UTC, Europe/Bucharest or America/New_York"))
        }
        if error.isInvalidDateTime {
            return .invalid(ReportError(.invalidRange, "a date is out of range or malformed: \(error.message)"))
        }
        return .database(error)
    }

    /// `dismissMeasurable`: the (category, app version) pairs whose manifest makes dismissals
    /// measurable; the rollups are read for those alone.
    public func read(_ scope: ReportScope, dismissMeasurable: [(category: String, appVersion: String)]) throws(ReportFailure) -> ReportData {
        do throws(DatabaseError) {
            // Pending deltas first, so the report counts every acknowledged event.
            try fold.foldBeforeReading(on: connection)
            // One snapshot for every read, so the parts of a report always add up.
            return try connection.readOnlySnapshot { () throws(DatabaseError) -> ReportData in
                let from = scope.from.iso8601(fractionDigits: 6), to = scope.to.iso8601(fractionDigits: 6)
                let localDays = try connection.query(EmbeddedSQL.reportLocalDays, [from, to, scope.timeZone]).namedRows.compactMap { row in
                    row["day"].flatMap { day in row["start_us"].flatMap { Int64($0) }.map { (day: day, start: $0) } }
                }
                var data: ReportData
                if scope.readsEvents {
                    data = try readEvents(scope, days: localDays.map(\.day))
                } else {
                    try connection.query(EmbeddedSQL.reportNoParallelWorkers)
                    let coverage = try connection.query(EmbeddedSQL.reportCoverage, [String(scope.appId)]).scalar.flatMap { Int64($0) }
                    // Where the conversion rollups may keep counts whose rows retention dropped (ReportPlan).
                    let horizon = try connection.query(EmbeddedSQL.retentionHorizon).scalar.flatMap { Int64($0) }
                    // The cut quarters whose rest has less to read than their part are read whole (ReportPlan).
                    var plan = ReportPlan(from: scope.from.microseconds, to: scope.to.microseconds, localDays: localDays, coverage: coverage,
                                          horizon: horizon, now: Timestamp.now.microseconds)
                    var read = try readRollups(scope, plan: plan, days: localDays.map(\.day), dismissMeasurable: dismissMeasurable)
                    if read == nil {
                        plan = ReportPlan(from: scope.from.microseconds, to: scope.to.microseconds, localDays: localDays, coverage: coverage,
                                          horizon: horizon)
                        read = try readRollups(scope, plan: plan, days: localDays.map(\.day), dismissMeasurable: dismissMeasurable)
                    }
                    guard let read else { throw DatabaseError(.unexpectedResult, "the report's rollups could not be read", query: EmbeddedSQL.reportTotals.name) }
                    data = read
                }
                data.holdouts = try HoldoutReader.campaigns(appId: scope.appId, from: scope.from, to: scope.to, on: connection)
                return data
            }
        } catch {
            throw Self.translate(error, timeZone: scope.timeZone)
        }
    }

    /// Nil when the cut quarters read whole cannot be told exactly (`apply`): then the caller
    /// reads again with a plan that reads every cut quarter's part from events.
    private func readRollups(_ scope: ReportScope, plan: ReportPlan, days: [String],
                             dismissMeasurable: [(category: String, appVersion: String)]) throws(DatabaseError) -> ReportData? {
        let app = String(scope.appId)
        let wholeDays = PostgresValue.timestampArray(plan.wholeDays), quarters = PostgresValue.timestampArray(plan.quarters)
        let grains = PostgresValue.intArray(plan.blocks.map(\.grain))
        let blockStarts = PostgresValue.timestampArray(plan.blocks.map(\.start))
        var data = ReportData(days: days)
        data.totals = try Self.totalsRows(connection.queryBinary(EmbeddedSQL.reportTotals, [app, grains, blockStarts, quarters]))
        data.actions = try Self.actionRows(connection.queryBinary(EmbeddedSQL.reportTotalActions, [app, grains, blockStarts, quarters]))
        data.histograms = try Self.histogramRows(connection.queryBinary(EmbeddedSQL.reportTotalHistograms, [app, grains, blockStarts, quarters]))
        data.trend = try Self.trendRows(connection.queryBinary(EmbeddedSQL.reportTrend, [app, PostgresValue.timestampArray(plan.trendRuns.map(\.lo)),
                                                                                   PostgresValue.timestampArray(plan.trendRuns.map(\.hi))]),
                                        runs: plan.trendRuns)
        if !dismissMeasurable.isEmpty {
            let pairs = Self.dismissPairs(dismissMeasurable)
            if pairs.keys.isEmpty {
                data.dismiss = try dismissGrid(app: app, categories: pairs.categories, versions: pairs.versions, plan: plan,
                                               grains: grains, blockStarts: blockStarts)
            } else {
                data.dismiss = try Self.dismissRows(connection.queryBinary(EmbeddedSQL.reportDismiss, [
                    app, PostgresValue.textArray(pairs.keys), grains, blockStarts, PostgresValue.timestampArray(plan.quarterRuns.map(\.lo)),
                    PostgresValue.timestampArray(plan.quarterRuns.map(\.hi)),
                ]))
            }
        }
        data.uplift = try Self.upliftRows(try connection.queryBinary(EmbeddedSQL.reportUpliftDays, [app, wholeDays]))
        try readConversions(scope, plan: plan, into: &data)

        // The minutes no rollup answers, from events through RollupDeltas.
        // Only the edges read from events need it: a real app's 1,160 pairs are not spelled otherwise.
        let measurable = plan.eventRanges.isEmpty && plan.wholeQuarters.isEmpty
            ? [] : Set(dismissMeasurable.map { Bytewise("\($0.category)\u{0}\($0.appVersion)") })
        var totalsEvents: RollupDeltas?
        if !plan.eventRanges.isEmpty {
            let finest = try ReportEdgeEvents.finest(appId: scope.appId, ranges: plan.eventRanges.map { ($0.lo, $0.hi) }, on: connection)
            totalsEvents = finest
            for (key, c) in finest.counts {
                let d = key.dimensions
                data.totals.append(ReportTotalsRow(category: d.category, hasMedia: key.hasMedia,
                                                   cutDay: Int(RollupDeltas.floor(d.bucket, ReportPlan.day) / ReportPlan.day), counts: c))
                if measurable.contains(Bytewise("\(d.category)\u{0}\(d.appVersion)")) {
                    data.dismiss.append(ReportDismissRow(category: d.category, appVersion: d.appVersion, delivered: Int(c.delivered),
                                                         dismissals: Int(c.dismissals)))
                }
            }
            for (key, n) in finest.actions {
                data.actions.append(ReportActionRow(category: key.dimensions.category, action: key.action, count: Int(n)))
            }
            for (key, n) in finest.histograms {
                data.histograms.append(ReportHistogramRow(category: key.dimensions.category, metric: key.metric, bin: Int(key.bin), count: Int(n)))
            }
        }
        if !plan.trendEventRanges.isEmpty {
            let finest: RollupDeltas
            if let totalsEvents, plan.trendReadsTheSameEvents {
                finest = totalsEvents
            } else {
                finest = try ReportEdgeEvents.finest(appId: scope.appId, ranges: plan.trendEventRanges.map { ($0.lo, $0.hi) }, on: connection)
            }
            for (key, c) in finest.counts {
                let q = key.dimensions.bucket
                // A quarter hour lies in one local day (every midnight is a quarter hour).
                guard let run = plan.trendEventRanges.first(where: { $0.lo < q + ReportPlan.quarter && q < $0.hi }) else { continue }
                data.trend.append(ReportTrendRow(category: key.dimensions.category, day: run.day, delivered: Int(c.delivered),
                                                 engaged: Int(RollupDeltas.engaged(opens: c.opens, actions: c.actions))))
            }
        }
        // The cut quarters read whole: what the fold has not yet moved into their rows added, the
        // rest of each (outside the range) taken away, both in this snapshot.
        if !plan.wholeQuarters.isEmpty {
            var change = try ReportEdgeEvents.pending(appId: scope.appId, quarters: plan.wholeQuarters, on: connection)
            let rest = try ReportEdgeEvents.finest(appId: scope.appId, ranges: plan.restRanges.map { ($0.lo, $0.hi) }, on: connection)
            change.subtract(rest)
            guard Self.apply(change, rest: rest, plan: plan, measurable: measurable, to: &data) else { return nil }
        }
        return data
    }

    /// The dismiss base when every category of `categories` is measurable in every version of
    /// `versions` (`dismissPairs` with no keys): the whole days' blocks
    /// (report_dismiss_grid_days.sql) and, only when the range cuts days, their quarter hours
    /// (report_dismiss_grid_quarters.sql), added up per category. The whole days' statement reads
    /// each block's sum over every version (rollup_dismiss_blocks, migration 0301) and whether the
    /// app has sent a version outside `versions`; only if it has are the rows of `versions` read
    /// instead (report_dismiss_grid_versions.sql); the quarters' tests each row's version. A category
    /// outside `categories` is dropped here. Each row names the first version,
    /// measurable for every category of the list, as report_dismiss.sql's row names one of its
    /// measurable versions: the same rows as that statement's, in the order of the categories.
    private func dismissGrid(app: String, categories: [String], versions: [String], plan: ReportPlan, grains: String,
                             blockStarts: String) throws(DatabaseError) -> [ReportDismissRow] {
        guard let version = versions.first else { return [] }
        let versionsArray = PostgresValue.textArray(versions)
        var sums: [Bytewise<String>: (delivered: Int, dismissals: Int)] = [:]
        func add(_ result: BinaryQueryResult) throws(DatabaseError) {
            let category = try result.position("category"), delivered = try result.position("delivered")
            let dismissals = try result.position("dismissals")
            for row in 0..<result.rowCount {
                let r = BinaryRow(result: result, row: row), name = Bytewise(try r.text(category))
                let sum = sums[name] ?? (0, 0)
                sums[name] = (sum.delivered + (try r.count(delivered)), sum.dismissals + (try r.count(dismissals)))
            }
        }
        if !plan.blocks.isEmpty {
            let blocks = try connection.queryBinary(EmbeddedSQL.reportDismissGridDays, [app, versionsArray, grains, blockStarts])
            let outside = try blocks.position("outside")
            // The blocks' sums are over every version: the grid's only when the app has no rows of a
            // version outside it (every row says the same). No row: no version has one either.
            var anyOutside = false
            for row in 0..<blocks.rowCount where try blocks.bool(row, outside) != false { anyOutside = true }
            if anyOutside {
                try add(connection.queryBinary(EmbeddedSQL.reportDismissGridVersions, [app, versionsArray, grains, blockStarts]))
            } else {
                try add(blocks)
            }
        }
        if !plan.quarterRuns.isEmpty {
            try add(connection.queryBinary(EmbeddedSQL.reportDismissGridQuarters, [
                app, versionsArray, PostgresValue.timestampArray(plan.quarterRuns.map(\.lo)),
                PostgresValue.timestampArray(plan.quarterRuns.map(\.hi)),
            ]))
        }
        return categories.compactMap { category in
            sums[Bytewise(category)].map { ReportDismissRow(category: category, appVersion: version, delivered: $0.delivered, dismissals: $0.dismissals) }
        }
    }

    /// The rows of report_trend.sql (a row per run of `runs`, 1-based, and category) added up per
    /// category and local day: a row per category and day, as report_raw_trend.sql gives them.
    static func trendRows(_ result: BinaryQueryResult, runs: [ReportPlan.LabeledRun]) throws(DatabaseError) -> [ReportTrendRow] {
        let run = try result.position("run"), category = try result.position("category"), delivered = try result.position("delivered")
        let engaged = try result.position("engaged")
        // Each local day by its position among the runs' days, so a key hashes one string.
        var days: [String] = [], dayIndex: [String: Int] = [:]
        let dayAt = runs.map { r in
            if let known = dayIndex[r.day] { return known }
            days.append(r.day)
            dayIndex[r.day] = days.count - 1
            return days.count - 1
        }
        struct Key: Hashable { @Bytewise var category: String; var day: Int }
        // Each key's place in `rows`, found with one lookup a row (the table sized for every row
        // its own key, as in UTC): the lookups and the table's growth were half this step.
        var position: [Key: Int] = [:]
        position.reserveCapacity(result.rowCount)
        var rows: [ReportTrendRow] = []
        rows.reserveCapacity(result.rowCount)
        func slot(_ value: inout Int) -> Int { value }
        for row in 0..<result.rowCount {
            let r = BinaryRow(result: result, row: row)
            guard let i = try r.integer(run), dayAt.indices.contains(i - 1) else {
                throw DatabaseError(.unexpectedResult, "an engagement line row names no run of the plan", query: result.statement)
            }
            let key = Key(category: try r.text(category), day: dayAt[i - 1])
            let d = try r.count(delivered), e = try r.count(engaged)
            let next = rows.count, k = slot(&position[key, default: next])
            if k == next {
                rows.append(ReportTrendRow(category: key.category, day: days[key.day], delivered: d, engaged: e))
            } else {
                rows[k].delivered += d
                rows[k].engaged += e
            }
        }
        return rows
    }

    /// The measurable (category, app version) pairs as the dismiss statements take them: every
    /// category with every version (`keys` empty; report_dismiss_grid_*.sql) when they are all the
    /// pairs of those, as when every manifest registers the same categories; else each pair
    /// spelled once as its key (report_dismiss.sql).
    static func dismissPairs(_ pairs: [(category: String, appVersion: String)]) -> (categories: [String], versions: [String], keys: [String]) {
        if let grid = versionByVersionGrid(pairs) { return (grid.categories, grid.versions, []) }
        return hashedDismissPairs(pairs)
    }

    /// `dismissPairs` by hashing every pair: finds the grid in any order, or spells the keys.
    static func hashedDismissPairs(_ pairs: [(category: String, appVersion: String)]) -> (categories: [String], versions: [String], keys: [String]) {
        var categories: [String] = [], versions: [String] = []
        var categoryAt: [Bytewise<String>: Int] = [:], versionAt: [Bytewise<String>: Int] = [:], seen: Set<Int> = []
        func position(of name: String, in names: inout [String], _ positions: inout [Bytewise<String>: Int]) -> Int {
            if let known = positions[Bytewise(name)] { return known }
            names.append(name)
            positions[Bytewise(name)] = names.count - 1
            return names.count - 1
        }
        for pair in pairs {
            let c = position(of: pair.category, in: &categories, &categoryAt), v = position(of: pair.appVersion, in: &versions, &versionAt)
            seen.insert(c << 32 | v)
        }
        if seen.count == categories.count * versions.count { return (categories, versions, []) }
        let keys = Set(pairs.map { Bytewise(dismissKey(category: $0.category, appVersion: $0.appVersion)) }).sorted().map(\.wrappedValue)
        return ([], [], keys)
    }

    /// The grid `dismissPairs` finds, found without hashing each pair: when the pairs come version
    /// by version (as the report lists them, a manifest at a time), each version's categories the
    /// same list in the same order, no category twice in it and no version twice, they are every
    /// category of that list with every version, in the order `dismissPairs` gives them. Nil
    /// otherwise (then `dismissPairs` hashes the pairs, which finds the grid in any order). A real
    /// app's 1,160 pairs cost two hashed strings each on every report (docs/reports.md, "Issue 33's
    /// ratio: the manifests' derived facts"); here, string comparisons and 70 hashes.
    static func versionByVersionGrid(_ pairs: [(category: String, appVersion: String)]) -> (categories: [String], versions: [String])? {
        guard let first = pairs.first else { return nil }
        var width = 0
        while width < pairs.count, String.sameBytes(pairs[width].appVersion, first.appVersion) { width += 1 }
        guard pairs.count % width == 0 else { return nil }
        let categories = pairs[0..<width].map(\.category)
        var versions: [String] = []
        versions.reserveCapacity(pairs.count / width)
        for start in stride(from: 0, to: pairs.count, by: width) {
            let version = pairs[start].appVersion
            for i in 0..<width {
                guard String.sameBytes(pairs[start + i].appVersion, version), String.sameBytes(pairs[start + i].category, categories[i]) else { return nil }
            }
            versions.append(version)
        }
        guard Set(categories.map { Bytewise($0) }).count == categories.count, Set(versions.map { Bytewise($0) }).count == versions.count else { return nil }
        return (categories, versions)
    }

    /// A pair's key in report_dismiss.sql: the category's length in bytes, ':', the category and
    /// the version. The length says where the category ends, so no two pairs share a key.
    static func dismissKey(category: String, appVersion: String) -> String {
        "\(category.utf8.count):\(category)\(appVersion)"
    }

    /// Adds the change of the cut quarters read whole (their pending deltas less their rests) to
    /// the rows read: each key's row from the rollups, or a new one for a key only pending. False
    /// when the rows cannot be told exactly, and the report reads those quarters' parts from
    /// events instead: a count below zero (the rollups and the events disagree), or a cut day's
    /// row of a category and side that the rest alone made, which nets to nothing (the part may
    /// still hold an event counted nowhere, which a category shows with zeros: the events say).
    static func apply(_ change: RollupDeltas, rest: RollupDeltas, plan: ReportPlan, measurable: Set<Bytewise<String>>, to data: inout ReportData) -> Bool {
        struct TotalsKey: Hashable { @Bytewise var category: String; var hasMedia: Bool; var cutDay: Int }
        /// A category and a second text (a day, an action), both by their bytes.
        struct PairKey: Hashable { @Bytewise var category: String; @Bytewise var other: String }
        func cutDay(_ bucket: Int64) -> Int { Int(RollupDeltas.floor(bucket, ReportPlan.day) / ReportPlan.day) }
        var totals: [TotalsKey: RollupDeltas.Counts] = [:], dismiss: [Bytewise<String>: (delivered: Int, dismissals: Int, version: String)] = [:]
        var trend: [PairKey: (delivered: Int, engaged: Int)] = [:]
        let trendDays = Dictionary(plan.trendWholeQuarters.map { ($0.lo, $0.day) }, uniquingKeysWith: { a, _ in a })
        for (key, c) in change.counts {
            let d = key.dimensions
            totals[TotalsKey(category: d.category, hasMedia: key.hasMedia, cutDay: cutDay(d.bucket)), default: .init()].add(c)
            if measurable.contains(Bytewise("\(d.category)\u{0}\(d.appVersion)")) {
                let sum = dismiss[Bytewise(d.category)] ?? (0, 0, d.appVersion)
                dismiss[Bytewise(d.category)] = (sum.delivered + Int(c.delivered), sum.dismissals + Int(c.dismissals),
                                        min(Bytewise(sum.version), Bytewise(d.appVersion)).wrappedValue)
            }
            if let day = trendDays[d.bucket] {
                let sum = trend[PairKey(category: d.category, other: day)] ?? (0, 0)
                trend[PairKey(category: d.category, other: day)] = (sum.delivered + Int(c.delivered), sum.engaged + Int(RollupDeltas.engaged(opens: c.opens, actions: c.actions)))
            }
        }
        let restKeys = Set(rest.counts.keys.map { TotalsKey(category: $0.dimensions.category, hasMedia: $0.hasMedia, cutDay: cutDay($0.dimensions.bucket)) })
        for (key, c) in totals {
            let rows = data.totals.indices.filter {
                data.totals[$0].group.isEmpty && String.sameBytes(data.totals[$0].category, key.category) && data.totals[$0].hasMedia == key.hasMedia
                    && data.totals[$0].cutDay == key.cutDay
            }
            if let i = rows.first {
                data.totals[i].counts.add(c)
            } else {
                data.totals.append(ReportTotalsRow(category: key.category, hasMedia: key.hasMedia, cutDay: key.cutDay, counts: c))
            }
            let merged = data.totals[rows.first ?? data.totals.count - 1].counts
            guard merged.delivered >= 0, merged.sent >= 0, merged.mediaRequested >= 0, merged.opens >= 0, merged.dismissals >= 0,
                  merged.actions >= 0, merged.replies >= 0 else { return false }
            if merged.isZero, rows.count <= 1, restKeys.contains(key) { return false }
        }
        for (category, sum) in dismiss {
            if let i = data.dismiss.firstIndex(where: { Bytewise($0.category) == category }) {
                data.dismiss[i].delivered += sum.delivered
                data.dismiss[i].dismissals += sum.dismissals
                guard data.dismiss[i].delivered >= 0, data.dismiss[i].dismissals >= 0 else { return false }
            } else {
                guard sum.delivered >= 0, sum.dismissals >= 0 else { return false }
                data.dismiss.append(ReportDismissRow(category: category.wrappedValue, appVersion: sum.version, delivered: sum.delivered, dismissals: sum.dismissals))
            }
        }
        for (key, sum) in trend {
            if let i = data.trend.firstIndex(where: { String.sameBytes($0.category, key.category) && $0.day == key.other }) {
                data.trend[i].delivered += sum.delivered
                data.trend[i].engaged += sum.engaged
                guard data.trend[i].delivered >= 0, data.trend[i].engaged >= 0 else { return false }
            } else {
                guard sum.delivered >= 0, sum.engaged >= 0 else { return false }
                data.trend.append(ReportTrendRow(category: key.category, day: key.other, delivered: sum.delivered, engaged: sum.engaged))
            }
        }
        // Actions and bins count events: a row that nets to nothing has none in the range.
        var actions: [PairKey: Int] = [:]
        for (key, n) in change.actions { actions[PairKey(category: key.dimensions.category, other: key.action), default: 0] += Int(n) }
        for (key, n) in actions where n != 0 {
            if let i = data.actions.firstIndex(where: { String.sameBytes($0.category, key.category) && String.sameBytes($0.action, key.other) }) {
                data.actions[i].count += n
                guard data.actions[i].count >= 0 else { return false }
                if data.actions[i].count == 0 { data.actions.remove(at: i) }
            } else {
                guard n > 0 else { return false }
                data.actions.append(ReportActionRow(category: key.category, action: key.other, count: n))
            }
        }
        struct BinKey: Hashable { @Bytewise var category: String; var metric: HistogramMetric; var bin: Int }
        var bins: [BinKey: Int] = [:]
        for (key, n) in change.histograms { bins[BinKey(category: key.dimensions.category, metric: key.metric, bin: Int(key.bin)), default: 0] += Int(n) }
        for (key, n) in bins where n != 0 {
            if let i = data.histograms.firstIndex(where: { String.sameBytes($0.category, key.category) && $0.metric == key.metric && $0.bin == key.bin }) {
                data.histograms[i].count += n
                guard data.histograms[i].count >= 0 else { return false }
                if data.histograms[i].count == 0 { data.histograms.remove(at: i) }
            } else {
                guard n > 0 else { return false }
                data.histograms.append(ReportHistogramRow(category: key.category, metric: key.metric, bin: key.bin, count: n))
            }
        }
        return true
    }

    /// Conversions from their rollups: the whole UTC days, and each cut day's part from the rows
    /// of the credited notifications, or its whole day less the rest of it (`ReportPlan`;
    /// docs/reports.md, "Conversions").
    private func readConversions(_ scope: ReportScope, plan: ReportPlan, into data: inout ReportData) throws(DatabaseError) {
        let app = String(scope.appId)
        data.attribution = try attribution(app)
        let parameters = [app, PostgresValue.timestampArray(plan.wholeDays), PostgresValue.timestampArray(plan.conversionRuns.map(\.lo)),
                          PostgresValue.timestampArray(plan.conversionRuns.map(\.hi)),
                          PostgresValue.textArray(plan.conversionRuns.map { String($0.sign) }),
                          PostgresValue.timestampArray(plan.conversionCutDays)]
        data.conversions = try Self.conversionRows(connection.queryBinary(EmbeddedSQL.reportConversions, parameters))
        data.conversionActions = try Self.conversionActionRows(connection.queryBinary(EmbeddedSQL.reportConversionActions, parameters))
        data.conversionTotals = try Self.conversionTotalRows(connection.queryBinary(EmbeddedSQL.reportConversionTotals, parameters))
        let outcomes = Set(data.conversions.map { [$0.name, $0.currency] }).sorted { $0.lexicographicallyPrecedes($1) }
        guard !outcomes.isEmpty, !plan.wholeDays.isEmpty else { return }
        data.conversionUplift = try Self.conversionUpliftRows(try connection.queryBinary(EmbeddedSQL.reportConversionUplift, [
            app, PostgresValue.timestampArray(plan.wholeDays), PostgresValue.textArray(outcomes.map { $0[0] }),
            PostgresValue.textArray(outcomes.map { $0[1] }),
        ]))
    }

    private func attribution(_ app: String) throws(DatabaseError) -> AttributionWindows? {
        try connection.query(EmbeddedSQL.reportAttribution, [app]).namedRows.first.map { row in
            AttributionWindows(directSeconds: Self.int(row["direct_seconds"]), influenceSeconds: Self.int(row["influence_seconds"]))
        }
    }

    /// The dimensions a credited notification keeps (conversion_credits, notification_conversions).
    static let conversionDimensions: Set<ReportDimension> = [.campaign, .platform]

    /// Why a filtered or grouped report cannot show conversions, or nil when it can.
    static func conversionsOmitted(_ scope: ReportScope) -> String? {
        let asked = scope.filters.pairs.map(\.0) + (scope.groupBy.map { [$0] } ?? [])
        guard let other = asked.first(where: { !conversionDimensions.contains($0) }) else { return nil }
        return "conversions follow a filter or --by on campaign or platform only (a credited notification keeps no \(other.rawValue))"
    }

    /// The raw-events report's conversions: from the credited notifications of the whole range.
    private func readRawConversions(_ scope: ReportScope, parameters: [String?], into data: inout ReportData) throws(DatabaseError) {
        data.attribution = try attribution(String(scope.appId))
        if let reason = Self.conversionsOmitted(scope) {
            data.conversionsOmitted = reason
            return
        }
        data.conversions = try Self.conversionRows(connection.queryBinary(EmbeddedSQL.reportRawConversions, parameters))
        data.conversionActions = try Self.conversionActionRows(connection.queryBinary(EmbeddedSQL.reportRawConversionActions, parameters))
        data.conversionTotals = try Self.conversionTotalRows(connection.queryBinary(EmbeddedSQL.reportRawConversionTotals,
                                                                                    Array(parameters.prefix(4))))
        guard !data.conversions.isEmpty else { return }
        // parameters: app, from, to, filters, group.
        data.conversionUplift = try Self.conversionUpliftRows(try connection.queryBinary(EmbeddedSQL.reportRawConversionUplift, parameters))
    }

    /// The raw-events report: every figure in SQL over the events of the range, by --by group.
    private func readEvents(_ scope: ReportScope, days: [String]) throws(DatabaseError) -> ReportData {
        let parameters = [String(scope.appId), scope.from.iso8601(fractionDigits: 6), scope.to.iso8601(fractionDigits: 6),
                          PostgresValue.textArray(scope.filters.sqlArray), scope.groupBy?.rawValue ?? ""]
        var data = ReportData(days: days)
        data.totals = try Self.totalsRows(connection.queryBinary(EmbeddedSQL.reportRawTotals, parameters))
        data.trend = try Self.rawTrendRows(connection.queryBinary(EmbeddedSQL.reportRawTrend, parameters + [scope.timeZone]))
        data.dismiss = try Self.dismissRows(connection.queryBinary(EmbeddedSQL.reportRawDismiss, parameters))
        data.actions = try Self.actionRows(connection.queryBinary(EmbeddedSQL.reportRawActions, parameters))
        data.histograms = try Self.rawHistogramRows(connection.queryBinary(EmbeddedSQL.reportRawHistograms, parameters))
        data.uplift = try Self.upliftRows(try connection.queryBinary(EmbeddedSQL.reportRawUplift, parameters))
        try readRawConversions(scope, parameters: parameters, into: &data)
        return data
    }

    static func int(_ text: String?) -> Int { text.flatMap { Int($0) } ?? 0 }

    /// The rows of report_total_histograms.sql (a category's and metric's bins and counts, a row
    /// per block of days or quarter hour) summed per bin: a row per category, metric and bin, as
    /// report_raw_histograms.sql gives them (every bin a row names, in no particular order).
    /// Each category's and metric's sums are one array indexed by bin (a reply length's bins run
    /// to 501, the time to response's to a few dozen), not a dictionary per key: a real app's 30
    /// categories read about 170 rows of a few hundred bins each, and hashing every bin of every
    /// row was most of this step (docs/reports.md, "What each report reads, and what it costs").
    /// A bin outside the arrays' range (none the rollups write) is summed in a dictionary.
    static func histogramRows(_ result: BinaryQueryResult) throws(DatabaseError) -> [ReportHistogramRow] {
        let categoryAt = try result.position("category"), metricAt = try result.position("metric"), binsAt = try result.position("bins")
        let countsAt = try result.position("counts")
        struct Key: Hashable { var category: String, metric: HistogramMetric }
        struct Sums {
            var counts: [Int] = []
            /// Whether a row named the bin (a bin summing to 0 is still a row, as the SQL's GROUP BY gave).
            var named: [Bool] = []
            var outside: [Int: Int] = [:]

            mutating func add(bins: [Int], counts rowCounts: [Int], dense: Int) {
                for (bin, count) in zip(bins, rowCounts) {
                    guard bin >= 0, bin < dense else {
                        outside[bin, default: 0] += count
                        continue
                    }
                    if bin >= counts.count {
                        counts.append(contentsOf: repeatElement(0, count: bin + 1 - counts.count))
                        named.append(contentsOf: repeatElement(false, count: bin + 1 - named.count))
                    }
                    counts[bin] += count
                    named[bin] = true
                }
            }
        }
        let denseBins = 4_096
        var position: [Key: Int] = [:], keys: [Key] = [], sums: [Sums] = []
        for row in 0..<result.rowCount {
            let r = BinaryRow(result: result, row: row)
            guard let metric = HistogramMetric(rawValue: try r.count(metricAt)) else { continue }
            guard let bins = try result.integerArray(row, binsAt), let counts = try result.integerArray(row, countsAt) else {
                throw DatabaseError(.unexpectedResult, "a histogram row's bins or counts are NULL", query: result.statement)
            }
            guard bins.count == counts.count else {
                throw DatabaseError(.unexpectedResult, "a histogram row has \(bins.count) bins and \(counts.count) counts", query: result.statement)
            }
            let key = Key(category: try r.text(categoryAt), metric: metric)
            let k: Int
            if let known = position[key] {
                k = known
            } else {
                k = keys.count
                position[key] = k
                keys.append(key)
                sums.append(Sums())
            }
            sums[k].add(bins: bins, counts: counts, dense: denseBins)
        }
        var rows: [ReportHistogramRow] = []
        for (k, key) in keys.enumerated() {
            let s = sums[k]
            for bin in s.counts.indices where s.named[bin] {
                rows.append(ReportHistogramRow(category: key.category, metric: key.metric, bin: bin, count: s.counts[bin]))
            }
            for (bin, count) in s.outside {
                rows.append(ReportHistogramRow(category: key.category, metric: key.metric, bin: bin, count: count))
            }
        }
        return rows
    }

    /// Where each column of an uplift result is (report_uplift_days.sql, report_raw_uplift.sql,
    /// report_conversion_uplift.sql, report_raw_conversion_uplift.sql), found once per result: a
    /// 30-day report reads thousands of rows of twenty-odd columns, and finding each column by
    /// name in every row cost more than reading it.
    struct UpliftColumns {
        let weights, numerator, p, q, nullSum, deviation, strata, excludedDelivered: Int
        let usedRichDelivered, usedRichEngaged, usedTextDelivered, usedTextEngaged: Int
        let bothRichDelivered, bothRichEngaged, bothTextDelivered, bothTextEngaged: Int
        let notMeaningfulDelivered, engagedWithoutDeliveries, category, utcDay: Int
        /// Only in some of the queries.
        let wholeReport, group, name, currency: Int?

        init(_ result: BinaryQueryResult) throws(DatabaseError) {
            func at(_ name: String) throws(DatabaseError) -> Int { try result.position(name) }
            (weights, numerator, p, q) = (try at("weights"), try at("numerator"), try at("p"), try at("q"))
            (nullSum, deviation) = (try at("null_sum"), try at("deviation"))
            (strata, excludedDelivered) = (try at("strata"), try at("excluded_delivered"))
            (usedRichDelivered, usedRichEngaged) = (try at("used_rich_delivered"), try at("used_rich_engaged"))
            (usedTextDelivered, usedTextEngaged) = (try at("used_text_delivered"), try at("used_text_engaged"))
            (bothRichDelivered, bothRichEngaged) = (try at("both_rich_delivered"), try at("both_rich_engaged"))
            (bothTextDelivered, bothTextEngaged) = (try at("both_text_delivered"), try at("both_text_engaged"))
            (notMeaningfulDelivered, engagedWithoutDeliveries) = (try at("not_meaningful_delivered"), try at("engaged_without_deliveries"))
            (category, utcDay) = (try at("category"), try at("utc_day"))
            (wholeReport, group) = (result.column("whole_report"), result.column("group_value"))
            (name, currency) = (result.column("name"), result.column("currency"))
        }
    }

    /// The rows of report_uplift_days.sql or report_raw_uplift.sql, read in binary.
    static func upliftRows(_ result: BinaryQueryResult) throws(DatabaseError) -> [ReportUpliftDayRow] {
        let columns = try UpliftColumns(result)
        return try mapRows(result) { (r) throws(DatabaseError) in try upliftRow(r, columns) }
    }

    /// The rows of report_conversion_uplift.sql or report_raw_conversion_uplift.sql, read in
    /// binary: an uplift row per conversion name and currency.
    static func conversionUpliftRows(_ result: BinaryQueryResult) throws(DatabaseError) -> [ReportConversionUpliftDayRow] {
        let columns = try UpliftColumns(result)
        return try mapRows(result) { (r) throws(DatabaseError) in
            ReportConversionUpliftDayRow(name: try r.text(columns.name), currency: try r.text(columns.currency), row: try upliftRow(r, columns))
        }
    }

    /// One uplift row, from its fields in binary. The sums are exact decimals (`numeric`); each
    /// becomes the nearest double, so the same sums always give the same figures
    /// (`ExactDecimal.double`: the double `Double(String)` gives for PostgreSQL's text of it).
    /// NULL is 0 (an empty string for text), as it was when these rows were read as text.
    static func upliftRow(_ r: BinaryRow, _ c: UpliftColumns) throws(DatabaseError) -> ReportUpliftDayRow {
        let sums = MantelHaenszelSums(weights: try r.real(c.weights), numerator: try r.real(c.numerator), p: try r.real(c.p),
                                      q: try r.real(c.q), nullSum: try r.real(c.nullSum), deviation: try r.real(c.deviation),
                                      strata: try r.count(c.strata), excludedTrials: try r.count(c.excludedDelivered))
        let day = UpliftDay(sums: sums,
                            rich: UpliftDay.Side(delivered: try r.count(c.usedRichDelivered), engaged: try r.count(c.usedRichEngaged)),
                            textOnly: UpliftDay.Side(delivered: try r.count(c.usedTextDelivered), engaged: try r.count(c.usedTextEngaged)),
                            bothSides: StratumCounts(x1: try r.count(c.bothRichEngaged), n1: try r.count(c.bothRichDelivered),
                                                     x2: try r.count(c.bothTextEngaged), n2: try r.count(c.bothTextDelivered)),
                            notMeaningfulDelivered: try r.count(c.notMeaningfulDelivered),
                            engagedWithoutDeliveries: try r.count(c.engagedWithoutDeliveries))
        // The rollups' rows are the report as a whole; the raw query says which of its rows are.
        let wholeReport = try c.wholeReport.map { (position) throws(DatabaseError) in try r.flag(position) } ?? true
        return ReportUpliftDayRow(wholeReport: wholeReport, group: try r.text(c.group), category: try r.text(c.category),
                                  utcDay: try r.count(c.utcDay), day: day)
    }
}
