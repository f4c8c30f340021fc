import TapwireCore

/// A dimension a report can be filtered or grouped by (`--by`). Raw values are the JSON and
/// CLI names.
public enum ReportDimension: String, Sendable, CaseIterable {
    case appVersion
    case platform
    case campaign
    case variant

    /// Accepts the JSON name and the CLI spellings (`version`, `app-version`).
    public init?(flag: String) {
        switch flag.lowercased() {
        case "appversion", "app-version", "app_version", "version": self = .appVersion
        case "platform": self = .platform
        case "campaign": self = .campaign
        case "variant": self = .variant
        default: return nil
        }
    }
}

/// Optional filters; nil matches everything. A missing campaign or variant matches "".
public struct ReportFilters: Sendable, Equatable {
    public var appVersion: String?
    public var platform: String?
    public var campaign: String?
    public var variant: String?

    public init(appVersion: String? = nil, platform: String? = nil, campaign: String? = nil, variant: String? = nil) {
        self.appVersion = appVersion
        self.platform = platform
        self.campaign = campaign
        self.variant = variant
    }

    public var isEmpty: Bool { appVersion == nil && platform == nil && campaign == nil && variant == nil }

    public var pairs: [(ReportDimension, String)] {
        [(.appVersion, appVersion), (.platform, platform), (.campaign, campaign), (.variant, variant)]
            .compactMap { dimension, value in value.map { (dimension, $0) } }
    }
}

/// Where the report's numbers are read from. `.rollups` is the product; `.rawEvents` computes
/// the same numbers from events only (the benchmark's baseline and a cross-check in tests).
public enum ReportSource: String, Sendable {
    case rollups
    case rawEvents
}

/// What one report covers: an app, a half-open range [from, to), the zone its days are in.
public struct ReportScope: Sendable, Equatable {
    public var appId: Int64
    public var from: Timestamp
    public var to: Timestamp
    /// An IANA zone name PostgreSQL knows ("UTC", "Europe/Bucharest", "Asia/Kolkata").
    public var timeZone: String
    public var filters: ReportFilters
    public var groupBy: ReportDimension?
    public var source: ReportSource
    /// Whether to read the strata, the cells every rich vs text-only figure (pooled and adjusted)
    /// is built from. Off only for the benchmark's measure of what they cost: those figures are
    /// then empty.
    public var strata: Bool

    public init(appId: Int64, from: Timestamp, to: Timestamp, timeZone: String = "UTC", filters: ReportFilters = ReportFilters(),
                groupBy: ReportDimension? = nil, source: ReportSource = .rollups, strata: Bool = true) {
        self.appId = appId
        self.from = from
        self.to = to
        self.timeZone = timeZone
        self.filters = filters
        self.groupBy = groupBy
        self.source = source
        self.strata = strata
    }

    /// The rollup grain of rollup_counts that holds every dimension this scope needs
    /// (migration 0010): by app version when only the version matters, else every dimension.
    var countsGrain: Int16 {
        let onlyVersion = filters.platform == nil && filters.campaign == nil && filters.variant == nil
            && (groupBy == nil || groupBy == .appVersion)
        return onlyVersion ? RollupDeltas.Grain.appVersion : RollupDeltas.Grain.everyDimension
    }

    /// The quarter-hour grain of rollup_counts for the hours a local midnight or an edge cuts
    /// (report_quarter_counts.sql): by app version when only the version matters, as `countsGrain`.
    var quarterCountsGrain: Int16 {
        countsGrain == RollupDeltas.Grain.appVersion ? RollupDeltas.Grain.quarterAppVersion : RollupDeltas.Grain.quarter
    }

    /// The grain of rollup_actions and rollup_histograms: hourly with no dimension (the daily
    /// rows are read with it) when unfiltered, else every dimension.
    var detailGrain: Int16 { filters.isEmpty && groupBy == nil ? RollupDeltas.Grain.hourly : RollupDeltas.Grain.everyDimension }

    /// The grain of rollup_counts the strata are read from (report_strata.sql): the daily strata
    /// (by app version, platform and campaign) unless the variant matters, which only the finest grain keeps.
    var strataGrain: Int16 { filters.variant == nil && groupBy != .variant ? RollupDeltas.Grain.strata : RollupDeltas.Grain.everyDimension }
}

/// One row of report_counts.sql.
public struct ReportCountRow: Sendable, Equatable {
    public var group: String
    public var appVersion: String
    /// The local date, YYYY-MM-DD.
    public var day: String
    public var category: String
    public var hasMedia: Bool
    public var delivered: Int
    public var sent: Int
    public var mediaRequested: Int
    public var opens: Int
    public var dismissals: Int
    public var actions: Int
    public var replies: Int

    public init(group: String = "", appVersion: String = "", day: String, category: String, hasMedia: Bool, delivered: Int = 0,
                sent: Int = 0, mediaRequested: Int = 0, opens: Int = 0, dismissals: Int = 0, actions: Int = 0, replies: Int = 0) {
        self.group = group
        self.appVersion = appVersion
        self.day = day
        self.category = category
        self.hasMedia = hasMedia
        self.delivered = delivered
        self.sent = sent
        self.mediaRequested = mediaRequested
        self.opens = opens
        self.dismissals = dismissals
        self.actions = actions
        self.replies = replies
    }
}

public struct ReportActionRow: Sendable, Equatable {
    public var group: String
    public var category: String
    public var action: String
    public var count: Int
    public init(group: String = "", category: String, action: String, count: Int) {
        self.group = group
        self.category = category
        self.action = action
        self.count = count
    }
}

public struct ReportHistogramRow: Sendable, Equatable {
    public var group: String
    public var category: String
    public var metric: HistogramMetric
    public var bin: Int
    public var count: Int
    public init(group: String = "", category: String, metric: HistogramMetric, bin: Int, count: Int) {
        self.group = group
        self.category = category
        self.metric = metric
        self.bin = bin
        self.count = count
    }
}

/// One row of report_strata.sql: a side (rich or text-only) of one stratum of the adjusted
/// difference, campaign × app version × platform, within a category (and --by group), on one
/// UTC day.
public struct ReportStratumRow: Sendable, Equatable {
    public var group: String
    /// The UTC day, as days since 1970-01-01: the anytime-valid interval looks at the strata day
    /// by day.
    public var utcDay: Int
    public var category: String
    public var appVersion: String
    public var platform: String
    public var campaign: String
    public var hasMedia: Bool
    public var delivered: Int
    public var opens: Int
    /// Registered actions, text replies included.
    public var actions: Int
    /// As the engagement rate counts it (`RollupDeltas.engaged`).
    public var engaged: Int { RollupDeltas.engaged(opens: opens, actions: actions) }

    public init(group: String = "", utcDay: Int = 0, category: String, appVersion: String = "", platform: String = "",
                campaign: String = "", hasMedia: Bool, delivered: Int, opens: Int, actions: Int) {
        self.group = group
        self.utcDay = utcDay
        self.category = category
        self.appVersion = appVersion
        self.platform = platform
        self.campaign = campaign
        self.hasMedia = hasMedia
        self.delivered = delivered
        self.opens = opens
        self.actions = actions
    }
}

/// Everything the report engine needs from the database for one scope, read in one snapshot.
public struct ReportData: Sendable, Equatable {
    /// Every local date of the range, in order (days without data included).
    public var days: [String]
    public var counts: [ReportCountRow]
    public var actions: [ReportActionRow]
    public var histograms: [ReportHistogramRow]
    /// The sides of each stratum; several rows may share a key (rollup and raw parts), the
    /// builder adds them.
    public var strata: [ReportStratumRow]
    public init(days: [String], counts: [ReportCountRow], actions: [ReportActionRow], histograms: [ReportHistogramRow],
                strata: [ReportStratumRow] = []) {
        self.days = days
        self.counts = counts
        self.actions = actions
        self.histograms = histograms
        self.strata = strata
    }
}

public struct ReportStoreError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable {
        case unknownTimeZone = "unknown_time_zone"
        case invalidRange = "invalid_range"
    }
    public var code: Code
    public var message: String
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }
    public var description: String { message }
}

/// Why report data could not be read: the scope, which the caller must change, or the database.
public enum ReportStoreFailure: Error, Sendable {
    case scope(ReportStoreError)
    case database(DatabaseError)
}

/// Reads report data (sql/queries/report_*.sql) and resolves local-day ranges.
public struct ReportStore: Sendable {
    /// Longer ranges are refused: ten years of hours is the most one report walks.
    public static let maxRangeDays: Int64 = 3_700

    public init() {}

    /// Local-day edges in `timeZone`: the midnight starting `fromDate`, the midnight after
    /// `toDate`, the midnight starting `sinceDays` days ending today, and now (the server clock).
    public func dayEdges(timeZone: String, fromDate: String?, toDate: String?, sinceDays: Int?,
                         on connection: PostgresConnection) throws(ReportStoreFailure) -> (from: Timestamp?, to: Timestamp?, since: Timestamp?, now: Timestamp) {
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

    static func translate(_ error: DatabaseError, timeZone: String) -> ReportStoreFailure {
        if error.isInvalidParameterValue {
            return .scope(ReportStoreError(.unknownTimeZone,
                                           "unknown time zone \"\(timeZone)\"; use an IANA name such as UTC, Europe/Bucharest or America/New_York"))
        }
        if error.isInvalidDateTime {
            return .scope(ReportStoreError(.invalidRange, "a date is out of range or malformed: \(error.message)"))
        }
        return .database(error)
    }

    public func load(_ scope: ReportScope, on connection: PostgresConnection) throws(ReportStoreFailure) -> ReportData {
        guard scope.from < scope.to else {
            throw .scope(ReportStoreError(.invalidRange, "the range is empty: from \(scope.from) is not before to \(scope.to)"))
        }
        guard scope.to.microseconds - scope.from.microseconds <= Self.maxRangeDays * 86_400_000_000 else {
            throw .scope(ReportStoreError(.invalidRange, "the range is longer than \(Self.maxRangeDays) days; ask for a shorter one"))
        }
        let raw = scope.source == .rawEvents
        let from = scope.from.iso8601(fractionDigits: 6), to = scope.to.iso8601(fractionDigits: 6)
        let filters = [scope.filters.appVersion, scope.filters.platform, scope.filters.campaign, scope.filters.variant]
        let group = scope.groupBy?.rawValue ?? ""
        func rollupParameters(grain: Int16) -> [String?] {
            [String(scope.appId), from, to, scope.timeZone, String(grain)] + filters + [group]
        }
        func detailParameters(grain: Int16) -> [String?] {
            [String(scope.appId), from, to, String(grain)] + filters + [group]
        }
        func rawParameters(_ range: (String, String), zone: Bool) -> [String?] {
            [String(scope.appId), range.0, range.1] + (zone ? [scope.timeZone] : []) + filters + [group]
        }
        func countRow(_ row: QueryResult.Row) -> ReportCountRow {
            ReportCountRow(group: row["group_value"] ?? "", appVersion: row["app_version"] ?? "", day: row["day"] ?? "",
                           category: row["category"] ?? "", hasMedia: row["has_media"] == "t", delivered: Self.int(row["delivered"]),
                           sent: Self.int(row["sent"]), mediaRequested: Self.int(row["media_requested"]), opens: Self.int(row["opens"]),
                           dismissals: Self.int(row["dismissals"]), actions: Self.int(row["actions"]), replies: Self.int(row["replies"]))
        }
        func actionRow(_ row: QueryResult.Row) -> ReportActionRow {
            ReportActionRow(group: row["group_value"] ?? "", category: row["category"] ?? "", action: row["action"] ?? "",
                            count: Self.int(row["count"]))
        }
        func stratumRow(_ row: QueryResult.Row) -> ReportStratumRow {
            ReportStratumRow(group: row["group_value"] ?? "", utcDay: Self.int(row["day"]), category: row["category"] ?? "",
                             appVersion: row["app_version"] ?? "",
                             platform: row["platform"] ?? "", campaign: row["campaign"] ?? "", hasMedia: row["has_media"] == "t",
                             delivered: Self.int(row["delivered"]), opens: Self.int(row["opens"]), actions: Self.int(row["actions"]))
        }
        func histogramRow(_ row: QueryResult.Row) -> ReportHistogramRow? {
            HistogramMetric(rawValue: Self.int(row["metric"])).map {
                ReportHistogramRow(group: row["group_value"] ?? "", category: row["category"] ?? "", metric: $0,
                                   bin: Self.int(row["bin"]), count: Self.int(row["count"]))
            }
        }
        // One snapshot for every read, so the parts of a report always add up.
        do throws(DatabaseError) {
            // Pending deltas first, so the report counts every acknowledged event.
            try RollupStore().foldBeforeReading(on: connection)
            return try connection.readOnlySnapshot { () throws(DatabaseError) -> ReportData in
                if !raw { try connection.query(EmbeddedSQL.reportNoParallelWorkers) }
                let days = try connection.query(EmbeddedSQL.reportDays, [from, to, scope.timeZone]).namedRows.compactMap { $0["day"] }
                var counts: [ReportCountRow] = [], actions: [ReportActionRow] = [], histograms: [ReportHistogramRow] = []
                var strata: [ReportStratumRow] = []
                if raw {
                    // The raw-events report, the oracle: every aggregate in SQL over the whole range.
                    let range = (from, to)
                    counts = try connection.query(EmbeddedSQL.reportRawCounts, rawParameters(range, zone: true)).namedRows.map(countRow)
                    actions = try connection.query(EmbeddedSQL.reportRawActions, rawParameters(range, zone: false)).namedRows.map(actionRow)
                    histograms = try connection.query(EmbeddedSQL.reportRawHistograms, rawParameters(range, zone: false)).namedRows
                        .compactMap(histogramRow)
                    if scope.strata {
                        strata = try connection.query(EmbeddedSQL.reportRawStrata, rawParameters(range, zone: false)).namedRows.map(stratumRow)
                    }
                    return ReportData(days: days, counts: counts, actions: actions, histograms: histograms, strata: strata)
                }
                // Whole hours inside one local day from the hourly and daily rollups…
                counts = try connection.query(EmbeddedSQL.reportCounts, rollupParameters(grain: scope.countsGrain)).namedRows.map(countRow)
                actions = try connection.query(EmbeddedSQL.reportActions, detailParameters(grain: scope.detailGrain)).namedRows.map(actionRow)
                histograms = try connection.query(EmbeddedSQL.reportHistograms, detailParameters(grain: scope.detailGrain)).namedRows
                    .compactMap(histogramRow)
                if scope.strata {
                    strata = try connection.query(EmbeddedSQL.reportStrata, detailParameters(grain: scope.strataGrain)).namedRows.map(stratumRow)
                }
                // …and the hours cut by an edge or a local midnight from the quarter-hour grain,
                // their minutes off the quarter hour from events through RollupDeltas: the
                // builder adds rows with the same key. Counts are by local day; action,
                // histogram and strata totals only need the range edges cut exactly.
                func edges(zone: String) throws(DatabaseError) -> [ReportEdgeRange] {
                    try connection.query(EmbeddedSQL.reportEdgeRanges, [String(scope.appId), from, to, zone]).namedRows
                        .compactMap { row -> ReportEdgeRange? in
                            guard let lo = row["lo_us"].flatMap({ Int64($0) }), let hi = row["hi_us"].flatMap({ Int64($0) }) else { return nil }
                            return ReportEdgeRange(lo: lo, hi: hi, fromQuarters: row["from_quarters"] == "t", day: row["day"] ?? "")
                        }
                }
                // The ranges as arrays of instants.
                func quarterParameters(_ ranges: [ReportEdgeRange], counts: Bool) -> [String?] {
                    let quarters = ranges.filter(\.fromQuarters)
                    return [String(scope.appId), PostgresValue.timestampArray(quarters.map(\.lo)), PostgresValue.timestampArray(quarters.map(\.hi))]
                        + (counts ? [scope.timeZone, String(scope.quarterCountsGrain)] : []) + filters + [group]
                }
                let edgeEvents = ReportEdgeEvents(scope: scope)
                let countEdges = try edges(zone: scope.timeZone)
                if countEdges.contains(where: \.fromQuarters) {
                    counts += try connection.query(EmbeddedSQL.reportQuarterCounts, quarterParameters(countEdges, counts: true)).namedRows.map(countRow)
                }
                let countMinutes = countEdges.filter { !$0.fromQuarters }
                var countDeltas: RollupDeltas?
                if !countMinutes.isEmpty {
                    let read = try ReportEdgeEvents.deltas(appId: scope.appId, ranges: countMinutes, on: connection)
                    counts += edgeEvents.counts(read, ranges: countMinutes)
                    countDeltas = read
                }
                let totalEdges = try edges(zone: "UTC")
                if totalEdges.contains(where: \.fromQuarters) {
                    let parameters = quarterParameters(totalEdges, counts: false)
                    actions += try connection.query(EmbeddedSQL.reportQuarterActions, parameters).namedRows.map(actionRow)
                    histograms += try connection.query(EmbeddedSQL.reportQuarterHistograms, parameters).namedRows.compactMap(histogramRow)
                    if scope.strata {
                        strata += try connection.query(EmbeddedSQL.reportQuarterStrata, parameters).namedRows.map(stratumRow)
                    }
                }
                let totalMinutes = totalEdges.filter { !$0.fromQuarters }
                if !totalMinutes.isEmpty {
                    // The same ranges as the counts' (always in UTC): read once.
                    let sameRanges = totalMinutes.map { [$0.lo, $0.hi] } == countMinutes.map { [$0.lo, $0.hi] }
                    let read: RollupDeltas
                    if sameRanges, let known = countDeltas {
                        read = known
                    } else {
                        read = try ReportEdgeEvents.deltas(appId: scope.appId, ranges: totalMinutes, on: connection)
                    }
                    actions += edgeEvents.actions(read)
                    histograms += edgeEvents.histograms(read)
                    if scope.strata { strata += edgeEvents.strata(read) }
                }
                return ReportData(days: days, counts: counts, actions: actions, histograms: histograms, strata: strata)
            }
        } catch {
            throw Self.translate(error, timeZone: scope.timeZone)
        }
    }

    static func int(_ text: String?) -> Int { text.flatMap { Int($0) } ?? 0 }
}
