/// The rows every rollup table gets from a set of finest rows (`RollupDeltas.derive`): what the
/// fold and the rebuild write, keyed as the tables are (sql/migrations/0150_report_rollups.sql,
/// 0020_mismatch_usage.sql, 0080_release_rollups.sql). What each table is for, and which report
/// part reads it, is in docs/reports.md ("How the rollups work"). Keyed by texts (`RollupRows`,
/// the fold's) or by the day's text ids (the rebuild's, `RollupTally<TextId>.Rows`), as the finest
/// rows they come from (`RollupText`).
public typealias RollupRows = RollupTables<String>

public struct RollupTables<Text: RollupText>: Sendable, Equatable {
    /// The `grain` of rollup_totals, rollup_total_actions, rollup_total_histograms and
    /// rollup_dismiss_base.
    public enum Grain {
        /// Quarter hours: the parts of the days a range's edges cut.
        public static var quarter: Int16 { 0 }
        /// UTC days (`bucket` is the midnight).
        public static var day: Int16 { 2 }
        /// Blocks of 1, 2, 4, 8 and 16 days aligned on 1970-01-01, grain g holding 2^(g − 2) days:
        /// the whole days of a range are read from the fewest blocks that cover them.
        public static var dayBlocks: [Int16] { [2, 3, 4, 5, 6] }

        /// The days a block of `grain` holds.
        public static func days(_ grain: Int16) -> Int64 { 1 << Int64(grain - 2) }

        /// The first midnight of the block of `grain` that holds the day starting at `day` (µs),
        /// as SQL's tapwire_day_block.
        public static func block(of day: Int64, grain: Int16) -> Int64 {
            let size = days(grain) * RollupDeltas.microsecondsPerDay
            return RollupDeltas.floor(day, size)
        }
    }

    public struct TotalsKey: Hashable, Sendable {
        public var appId: Int64
        public var grain: Int16
        /// µs since 1970.
        public var bucket: Int64
        @Bytewise public var category: Text
        public var hasMedia: Bool
    }

    public struct TotalActionKey: Hashable, Sendable {
        public var appId: Int64
        public var grain: Int16
        public var bucket: Int64
        @Bytewise public var category: Text
        @Bytewise public var action: Text
    }

    public struct TotalBinKey: Hashable, Sendable {
        public var appId: Int64
        public var grain: Int16
        public var bucket: Int64
        @Bytewise public var category: Text
        public var metric: HistogramMetric
        public var bin: Int16
    }

    /// A quarter hour of one category (rollup_trend keeps a day's 96 in one row).
    public struct QuarterKey: Hashable, Sendable {
        public var appId: Int64
        /// The quarter hour's start, µs since 1970.
        public var quarter: Int64
        @Bytewise public var category: Text
    }

    /// A block of days of one category and app version (rollup_dismiss_base).
    public struct DismissKey: Hashable, Sendable {
        public var appId: Int64
        public var grain: Int16
        public var bucket: Int64
        @Bytewise public var category: Text
        @Bytewise public var appVersion: Text
    }

    /// A quarter hour of one category and app version (rollup_dismiss_quarters keeps a day's 96).
    public struct VersionQuarterKey: Hashable, Sendable {
        public var appId: Int64
        public var quarter: Int64
        @Bytewise public var category: Text
        @Bytewise public var appVersion: Text
    }

    /// One side (rich or text-only) of a stratum of the adjusted difference: campaign × platform ×
    /// UTC day, within a category (rollup_strata keeps both sides in one row).
    public struct StratumKey: Hashable, Sendable {
        public var appId: Int64
        /// The UTC day's midnight, µs since 1970.
        public var day: Int64
        @Bytewise public var category: Text
        @Bytewise public var campaign: Text
        @Bytewise public var platform: Text
        public var hasMedia: Bool
    }

    public struct MarginalKey: Hashable, Sendable {
        public var appId: Int64
        public var day: Int64
        public var dimension: ReportDimension
        @Bytewise public var value: Text
        @Bytewise public var category: Text
        public var hasMedia: Bool
    }

    /// Per UTC hour, category, app version and platform: what the release-regression check reads
    /// (rollup_release_counts and rollup_release_actions keep a day's 24 hours in one row).
    public struct ReleaseKey: Hashable, Sendable {
        public var appId: Int64
        /// The hour's start, µs since 1970.
        public var hour: Int64
        @Bytewise public var category: Text
        @Bytewise public var appVersion: Text
        @Bytewise public var platform: Text
    }

    public struct ReleaseActionKey: Hashable, Sendable {
        public var release: ReleaseKey
        @Bytewise public var action: Text
    }

    /// Two counters kept together (delivered and engaged; delivered and dismissals).
    public struct Pair: Hashable, Sendable {
        public var first: Int64
        public var second: Int64
        public static var zero: Pair { Pair(first: 0, second: 0) }
        public mutating func add(_ a: Int64, _ b: Int64) {
            first += a
            second += b
        }
    }

    public struct MarginalCounts: Hashable, Sendable {
        public var delivered: Int64 = 0
        public var sent: Int64 = 0
        public var opens: Int64 = 0
        public var actions: Int64 = 0
        public init() {}
        public mutating func add(_ c: RollupCounts) {
            delivered += c.delivered
            sent += c.sent
            opens += c.opens
            actions += c.actions
        }
    }

    public struct ReleaseCounts: Hashable, Sendable {
        public var delivered: Int64 = 0
        public var opens: Int64 = 0
        public var dismissals: Int64 = 0
        /// Responses with a registered action that carried a reply length.
        public var replies: Int64 = 0
        public init() {}
        public mutating func add(_ c: RollupCounts) {
            delivered += c.delivered
            opens += c.opens
            dismissals += c.dismissals
            replies += c.replies
        }
        public mutating func add(_ other: ReleaseCounts) {
            delivered += other.delivered
            opens += other.opens
            dismissals += other.dismissals
            replies += other.replies
        }
    }

    public var totals: [TotalsKey: RollupCounts] = [:]
    public var totalActions: [TotalActionKey: Int64] = [:]
    public var totalHistograms: [TotalBinKey: Int64] = [:]
    /// Delivered and engaged.
    public var trend: [QuarterKey: Pair] = [:]
    /// Delivered and dismissals, by blocks of days.
    public var dismissBase: [DismissKey: Pair] = [:]
    /// Delivered and dismissals, by quarter hour.
    public var dismissQuarters: [VersionQuarterKey: Pair] = [:]
    /// Delivered and engaged.
    public var strata: [StratumKey: Pair] = [:]
    public var marginals: [MarginalKey: MarginalCounts] = [:]
    public var usageHourly: [RollupTally<Text>.UsageKey: RollupUsage] = [:]
    public var usageDaily: [RollupTally<Text>.UsageKey: RollupUsage] = [:]
    public var releaseCounts: [ReleaseKey: ReleaseCounts] = [:]
    public var releaseActions: [ReleaseActionKey: Int64] = [:]

    public init() {}

    // MARK: The tables' own rows

    /// A UTC day of one category: rollup_trend's key.
    public struct DayKey: Hashable, Sendable {
        public var appId: Int64
        /// The day's midnight, µs since 1970.
        public var day: Int64
        @Bytewise public var category: Text
    }

    /// A UTC day of one category and app version: rollup_dismiss_quarters' key.
    public struct VersionDayKey: Hashable, Sendable {
        public var appId: Int64
        public var day: Int64
        @Bytewise public var category: Text
        @Bytewise public var appVersion: Text
    }

    /// A stratum, both sides in one row: rollup_strata's key.
    public struct StratumDayKey: Hashable, Sendable {
        public var appId: Int64
        public var day: Int64
        @Bytewise public var category: Text
        @Bytewise public var campaign: Text
        @Bytewise public var platform: Text
    }

    /// A histogram of one bucket: rollup_total_histograms' key.
    public struct HistogramKey: Hashable, Sendable {
        public var appId: Int64
        public var grain: Int16
        public var bucket: Int64
        @Bytewise public var category: Text
        public var metric: HistogramMetric
    }

    /// A UTC day of one category, app version and platform: rollup_release_counts' key.
    public struct ReleaseDayKey: Hashable, Sendable {
        public var appId: Int64
        public var day: Int64
        @Bytewise public var category: Text
        @Bytewise public var appVersion: Text
        @Bytewise public var platform: Text
    }

    public struct ReleaseActionDayKey: Hashable, Sendable {
        public var release: ReleaseDayKey
        @Bytewise public var action: Text
    }

    /// Two counters of a day as running sums at its 97 quarter-hour edges: element q sums quarters
    /// 0 ..< q, so element 0 is 0 and element 96 the day (SQL's tapwire_quarter_running).
    public struct RunningPair: Hashable, Sendable {
        public var first: [Int64]
        public var second: [Int64]
    }

    /// A stratum's rich and text-only sides.
    public struct StratumCounts: Hashable, Sendable {
        public var rich = Pair.zero
        public var text = Pair.zero
    }

    /// A histogram's bins that have counts, ascending, and their counts.
    public struct Bins: Hashable, Sendable {
        public var bins: [Int16]
        public var counts: [Int64]
    }

    /// A day's four release counters, each by UTC hour (24 elements).
    public struct ReleaseHours: Hashable, Sendable {
        public var delivered = [Int64](repeating: 0, count: 24)
        public var opens = [Int64](repeating: 0, count: 24)
        public var dismissals = [Int64](repeating: 0, count: 24)
        public var replies = [Int64](repeating: 0, count: 24)
    }

    /// rollup_trend's rows: each category's day of quarter hours as running sums.
    public var trendDays: [DayKey: RunningPair] {
        @_specialize(where Text == String)
        @_specialize(where Text == TextId)
        get {
            Self.runningDays(trend) { key in
                (DayKey(appId: key.appId, day: RollupDeltas.floor(key.quarter, RollupDeltas.microsecondsPerDay), category: key.category), key.quarter)
            }
        }
    }

    /// rollup_dismiss_quarters' rows.
    public var dismissQuarterDays: [VersionDayKey: RunningPair] {
        @_specialize(where Text == String)
        @_specialize(where Text == TextId)
        get {
            Self.runningDays(dismissQuarters) { key in
                (VersionDayKey(appId: key.appId, day: RollupDeltas.floor(key.quarter, RollupDeltas.microsecondsPerDay),
                               category: key.category, appVersion: key.appVersion), key.quarter)
            }
        }
    }

    /// rollup_strata's rows: the two sides of each stratum together.
    public var strataDays: [StratumDayKey: StratumCounts] {
        @_specialize(where Text == String)
        @_specialize(where Text == TextId)
        get {
            var rows: [StratumDayKey: StratumCounts] = [:]
            for (key, pair) in strata {
                let day = StratumDayKey(appId: key.appId, day: key.day, category: key.category, campaign: key.campaign, platform: key.platform)
                if key.hasMedia {
                    rows[day, default: StratumCounts()].rich.add(pair.first, pair.second)
                } else {
                    rows[day, default: StratumCounts()].text.add(pair.first, pair.second)
                }
            }
            return rows
        }
    }

    /// rollup_total_histograms' rows: each histogram's bins in one row, ascending.
    public var histogramBins: [HistogramKey: Bins] {
        @_specialize(where Text == String)
        @_specialize(where Text == TextId)
        get {
            var grouped: [HistogramKey: [(Int16, Int64)]] = [:]
            for (key, n) in totalHistograms where n != 0 {
                grouped[HistogramKey(appId: key.appId, grain: key.grain, bucket: key.bucket, category: key.category, metric: key.metric),
                        default: []].append((key.bin, n))
            }
            return grouped.mapValues { pairs in
                let sorted = pairs.sorted { $0.0 < $1.0 }
                return Bins(bins: sorted.map(\.0), counts: sorted.map(\.1))
            }
        }
    }

    /// rollup_release_counts' rows: a day's hours in one row.
    public var releaseDays: [ReleaseDayKey: ReleaseHours] {
        @_specialize(where Text == String)
        @_specialize(where Text == TextId)
        get {
            var rows: [ReleaseDayKey: ReleaseHours] = [:]
            for (key, c) in releaseCounts {
                let (day, hour) = Self.dayAndHour(key)
                rows[day, default: ReleaseHours()].delivered[hour] += c.delivered
                rows[day, default: ReleaseHours()].opens[hour] += c.opens
                rows[day, default: ReleaseHours()].dismissals[hour] += c.dismissals
                rows[day, default: ReleaseHours()].replies[hour] += c.replies
            }
            return rows
        }
    }

    /// rollup_release_actions' rows: a day's hours in one row.
    public var releaseActionDays: [ReleaseActionDayKey: [Int64]] {
        @_specialize(where Text == String)
        @_specialize(where Text == TextId)
        get {
            var rows: [ReleaseActionDayKey: [Int64]] = [:]
            for (key, n) in releaseActions {
                let (day, hour) = Self.dayAndHour(key.release)
                rows[ReleaseActionDayKey(release: day, action: key.action), default: [Int64](repeating: 0, count: 24)][hour] += n
            }
            return rows
        }
    }

    private static func dayAndHour(_ key: ReleaseKey) -> (ReleaseDayKey, Int) {
        let day = RollupDeltas.floor(key.hour, RollupDeltas.microsecondsPerDay)
        return (ReleaseDayKey(appId: key.appId, day: day, category: key.category, appVersion: key.appVersion, platform: key.platform),
                Int((key.hour - day) / RollupDeltas.microsecondsPerHour))
    }

    /// Pairs by quarter hour, grouped into their days as running sums.
    private static func runningDays<Source, Day: Hashable>(_ quarters: [Source: Pair], day: (Source) -> (Day, Int64)) -> [Day: RunningPair] {
        let quarterLength = RollupDeltas.microsecondsPerDay / 96
        var counts: [Day: RunningPair] = [:]
        for (key, pair) in quarters {
            let (dayKey, quarter) = day(key)
            let index = Int((quarter - RollupDeltas.floor(quarter, RollupDeltas.microsecondsPerDay)) / quarterLength)
            counts[dayKey, default: RunningPair(first: [Int64](repeating: 0, count: 96), second: [Int64](repeating: 0, count: 96))]
                .first[index] += pair.first
            counts[dayKey]!.second[index] += pair.second
        }
        return counts.mapValues { RunningPair(first: running($0.first), second: running($0.second)) }
    }

    /// The running sums at the 97 edges of 96 quarter hours' counts.
    static func running(_ counts: [Int64]) -> [Int64] {
        var sums = [Int64](repeating: 0, count: counts.count + 1)
        for (i, n) in counts.enumerated() { sums[i + 1] = sums[i] + n }
        return sums
    }

    /// How many rows, over every table.
    public var rowCount: Int {
        totals.count + totalActions.count + totalHistograms.count + trend.count + dismissBase.count + dismissQuarters.count + strata.count
            + marginals.count
            + usageHourly.count + usageDaily.count + releaseCounts.count + releaseActions.count
    }
}
