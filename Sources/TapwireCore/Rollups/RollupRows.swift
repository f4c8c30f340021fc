/// The rows every rollup table gets from a set of finest rows (`RollupDeltas.derive`): what the
/// fold and the rebuild write, keyed as the tables are (sql/migrations/0150_report_rollups.sql,
/// 0020_mismatch_usage.sql, 0080_release_rollups.sql). What each table is for, and which report
/// part reads it, is in docs/reports.md ("How the rollups work").
public struct RollupRows: Sendable, Equatable {
    /// The `grain` of rollup_totals, rollup_total_actions, rollup_total_histograms and
    /// rollup_dismiss_base.
    public enum Grain {
        /// Quarter hours: the parts of the days a range's edges cut.
        public static let quarter: Int16 = 0
        /// UTC days (`bucket` is the midnight).
        public static let day: Int16 = 2
        /// Blocks of 1, 2, 4, 8 and 16 days aligned on 1970-01-01, grain g holding 2^(g − 2) days:
        /// the whole days of a range are read from the fewest blocks that cover them.
        public static let dayBlocks: [Int16] = [2, 3, 4, 5, 6]

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
        public var category: String
        public var hasMedia: Bool
    }

    public struct TotalActionKey: Hashable, Sendable {
        public var appId: Int64
        public var grain: Int16
        public var bucket: Int64
        public var category: String
        public var action: String
    }

    public struct TotalBinKey: Hashable, Sendable {
        public var appId: Int64
        public var grain: Int16
        public var bucket: Int64
        public var category: String
        public var metric: HistogramMetric
        public var bin: Int16
    }

    /// A quarter hour of one category (rollup_trend keeps a day's 96 in one row).
    public struct QuarterKey: Hashable, Sendable {
        public var appId: Int64
        /// The quarter hour's start, µs since 1970.
        public var quarter: Int64
        public var category: String
    }

    /// A block of days of one category and app version (rollup_dismiss_base).
    public struct DismissKey: Hashable, Sendable {
        public var appId: Int64
        public var grain: Int16
        public var bucket: Int64
        public var category: String
        public var appVersion: String
    }

    /// A quarter hour of one category and app version (rollup_dismiss_quarters keeps a day's 96).
    public struct VersionQuarterKey: Hashable, Sendable {
        public var appId: Int64
        public var quarter: Int64
        public var category: String
        public var appVersion: String
    }

    /// One side (rich or text-only) of a stratum of the adjusted difference: campaign × platform ×
    /// UTC day, within a category (rollup_strata keeps both sides in one row).
    public struct StratumKey: Hashable, Sendable {
        public var appId: Int64
        /// The UTC day's midnight, µs since 1970.
        public var day: Int64
        public var category: String
        public var campaign: String
        public var platform: String
        public var hasMedia: Bool
    }

    public struct MarginalKey: Hashable, Sendable {
        public var appId: Int64
        public var day: Int64
        public var dimension: ReportDimension
        public var value: String
        public var category: String
        public var hasMedia: Bool
    }

    /// Per UTC hour, category, app version and platform: what the release-regression check reads
    /// (rollup_release_counts and rollup_release_actions keep a day's 24 hours in one row).
    public struct ReleaseKey: Hashable, Sendable {
        public var appId: Int64
        /// The hour's start, µs since 1970.
        public var hour: Int64
        public var category: String
        public var appVersion: String
        public var platform: String
    }

    public struct ReleaseActionKey: Hashable, Sendable {
        public var release: ReleaseKey
        public var action: String
    }

    /// Two counters kept together (delivered and engaged; delivered and dismissals).
    public struct Pair: Hashable, Sendable {
        public var first: Int64
        public var second: Int64
        public static let zero = Pair(first: 0, second: 0)
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
        public mutating func add(_ c: RollupDeltas.Counts) {
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
        public mutating func add(_ c: RollupDeltas.Counts) {
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

    public var totals: [TotalsKey: RollupDeltas.Counts] = [:]
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
    public var usageHourly: [RollupDeltas.UsageKey: RollupDeltas.Usage] = [:]
    public var usageDaily: [RollupDeltas.UsageKey: RollupDeltas.Usage] = [:]
    public var releaseCounts: [ReleaseKey: ReleaseCounts] = [:]
    public var releaseActions: [ReleaseActionKey: Int64] = [:]

    public init() {}

    /// How many rows, over every table.
    public var rowCount: Int {
        totals.count + totalActions.count + totalHistograms.count + trend.count + dismissBase.count + dismissQuarters.count + strata.count
            + marginals.count
            + usageHourly.count + usageDaily.count + releaseCounts.count + releaseActions.count
    }
}
