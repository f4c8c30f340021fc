/// What a set of stored events adds to every rollup table: the single definition of each
/// aggregate. A group commit computes the finest rows from the events its dedup claim found new
/// and appends them in the same transaction; the fold sums many commits' rows and derives the
/// coarser grains once; `tapwire rollups rebuild` runs a day's events through it again
/// (docs/architecture.md, "One event's path", step 5; the tables are described in
/// sql/migrations/0010_rollups.sql, 0020_mismatch_usage.sql and 0040_rollup_strata.sql).
///
/// Events are first tallied by their full shape (everything any rollup keys on, except the
/// histogram bins), so the per-event work is one dictionary update; the rows are then derived
/// from the shapes, which are few.
public struct RollupDeltas: Sendable, Equatable {
    /// Rollup grains (the `grain` column); what each keeps is documented in migration 0010.
    public enum Grain {
        /// Hourly, by app version, platform, campaign and variant.
        public static let everyDimension: Int16 = 0
        /// Hourly, by app version only (rollup_counts).
        public static let appVersion: Int16 = 1
        /// Hourly, no dimension (rollup_actions, rollup_histograms).
        public static let hourly: Int16 = 2
        /// Daily, no dimension (rollup_actions, rollup_histograms).
        public static let daily: Int16 = 3
        /// Daily, by app version, platform and campaign: the strata of the adjusted difference.
        public static let strata: Int16 = 4
        /// Quarter-hourly, by app version, platform, campaign and variant (migration 0100): the
        /// finest grain, which a commit stores and every other is derived from. A quarter hour
        /// never straddles a local midnight, so a report in any zone reads the hours its local
        /// midnights cut from here.
        public static let quarter: Int16 = 5
        /// Quarter-hourly, by app version only (rollup_counts): what an unfiltered report's
        /// counts read for the hours its local midnights cut, a few rows per quarter hour.
        public static let quarterAppVersion: Int16 = 6
    }

    /// The dimensions every engagement rollup row is keyed by; a grain that does not keep a
    /// dimension stores ''.
    public struct Dimensions: Hashable, Sendable {
        public var appId: Int64
        public var grain: Int16
        /// Start of the UTC hour (the quarter hour for grain 5, the day for the daily grains),
        /// in µs since 1970.
        public var bucket: Int64
        public var category: String
        public var appVersion: String
        public var platform: String
        public var campaign: String
        public var variant: String

        public init(appId: Int64, grain: Int16, bucket: Int64, category: String, appVersion: String, platform: String,
                    campaign: String, variant: String) {
            self.appId = appId
            self.grain = grain
            self.bucket = bucket
            self.category = category
            self.appVersion = appVersion
            self.platform = platform
            self.campaign = campaign
            self.variant = variant
        }
    }

    public struct CountsKey: Hashable, Sendable {
        public var dimensions: Dimensions
        public var hasMedia: Bool
        public init(dimensions: Dimensions, hasMedia: Bool) {
            self.dimensions = dimensions
            self.hasMedia = hasMedia
        }
    }

    /// What the engagement rate counts as engaged: opens (the default action) and registered
    /// actions, text replies among them, but not dismissals. The one definition; the SQL reads
    /// opens and actions apart and every figure adds them here.
    public static func engaged<N: BinaryInteger>(opens: N, actions: N) -> N { opens + actions }

    /// The counters of one rollup_counts row (see migration 0010 for what each counts).
    public struct Counts: Hashable, Sendable {
        public var delivered: Int64 = 0
        public var sent: Int64 = 0
        public var mediaRequested: Int64 = 0
        public var opens: Int64 = 0
        public var dismissals: Int64 = 0
        public var actions: Int64 = 0
        public var replies: Int64 = 0
        public init() {}

        public mutating func add(_ other: Counts) {
            delivered += other.delivered
            sent += other.sent
            mediaRequested += other.mediaRequested
            opens += other.opens
            dismissals += other.dismissals
            actions += other.actions
            replies += other.replies
        }
    }

    public struct ActionKey: Hashable, Sendable {
        public var dimensions: Dimensions
        public var action: String
        public init(dimensions: Dimensions, action: String) {
            self.dimensions = dimensions
            self.action = action
        }
    }

    public struct HistogramKey: Hashable, Sendable {
        public var dimensions: Dimensions
        public var metric: HistogramMetric
        public var bin: Int16
        public init(dimensions: Dimensions, metric: HistogramMetric, bin: Int16) {
            self.dimensions = dimensions
            self.metric = metric
            self.bin = bin
        }
    }

    /// A mismatch usage row's key (mismatch_usage_hourly and _daily, migration 0020).
    public struct UsageKey: Hashable, Sendable {
        public var appId: Int64
        /// Start of the UTC hour (hourly table) or day (daily table), µs since 1970.
        public var bucket: Int64
        public var appVersion: String
        public var platform: String
        public var type: EventType
        public var category: String
        /// '' for events without an action (delivered, sent).
        public var action: String
        /// The device's categoryRegistered: 1 true, 0 false, -1 not reported.
        public var categoryRegistered: Int16

        public init(appId: Int64, bucket: Int64, appVersion: String, platform: String, type: EventType, category: String,
                    action: String, categoryRegistered: Int16) {
            self.appId = appId
            self.bucket = bucket
            self.appVersion = appVersion
            self.platform = platform
            self.type = type
            self.category = category
            self.action = action
            self.categoryRegistered = categoryRegistered
        }
    }

    public struct Usage: Hashable, Sendable {
        public var count: Int64
        public var firstSeen: Timestamp
        public var lastSeen: Timestamp

        public init(count: Int64, firstSeen: Timestamp, lastSeen: Timestamp) {
            self.count = count
            self.firstSeen = firstSeen
            self.lastSeen = lastSeen
        }

        mutating func add(_ other: Usage) {
            count += other.count
            firstSeen = min(firstSeen, other.firstSeen)
            lastSeen = max(lastSeen, other.lastSeen)
        }
    }

    public private(set) var counts: [CountsKey: Counts] = [:]
    public private(set) var actions: [ActionKey: Int64] = [:]
    public private(set) var histograms: [HistogramKey: Int64] = [:]
    public private(set) var usageHourly: [UsageKey: Usage] = [:]
    public private(set) var usageDaily: [UsageKey: Usage] = [:]

    /// Everything any rollup keys on, except histogram bins.
    private struct Shape: Hashable, Sendable {
        var appId: Int64
        var quarter: Int64
        var appVersion: String
        var platform: String
        var category: String
        var campaign: String
        var variant: String
        var hasMedia: Bool
        var type: EventType
        var action: String?
        var categoryRegistered: Bool?
    }

    private struct ShapeTally: Equatable, Sendable {
        var events: Int64 = 0
        var mediaRequested: Int64 = 0
        var withReplyLength: Int64 = 0
        var first = Timestamp(microseconds: .max)
        var last = Timestamp(microseconds: .min)
        /// (metric, bin) → events.
        var bins: [Int32: Int64] = [:]

        mutating func record(_ event: Event) {
            events += 1
            if event.mediaRequested == true { mediaRequested += 1 }
            if event.userTextLength != nil { withReplyLength += 1 }
            if event.eventTime < first { first = event.eventTime }
            if event.eventTime > last { last = event.eventTime }
            if event.type == .response {
                for (metric, bin) in RollupDeltas.bins(of: event) {
                    bins[Int32(metric.rawValue) << 16 | Int32(UInt16(bitPattern: bin)), default: 0] += 1
                }
            }
        }
    }

    private var shapes: [Shape: ShapeTally] = [:]

    public init() {}

    public static let microsecondsPerQuarterHour: Int64 = 900_000_000
    public static let microsecondsPerHour: Int64 = 3_600_000_000
    public static let microsecondsPerDay: Int64 = 86_400_000_000

    /// The events of one request (they share an app and a device context).
    public mutating func add<Events: Sequence>(_ events: Events, appId: Int64, context: DeviceContext) where Events.Element == Event {
        for event in events { add(event, appId: appId, context: context) }
    }

    public mutating func add(_ event: Event, appId: Int64, context: DeviceContext) {
        let shape = Shape(appId: appId, quarter: Self.floor(event.eventTime.microseconds, Self.microsecondsPerQuarterHour),
                          appVersion: context.appVersion, platform: context.platform, category: event.category,
                          campaign: event.campaign ?? "", variant: event.variant ?? "", hasMedia: event.hasMedia,
                          type: event.type, action: event.actionIdentifier, categoryRegistered: event.categoryRegistered)
        shapes[shape, default: ShapeTally()].record(event)
    }

    /// Folds the shapes tallied so far into the rollup rows, every grain. Call once all events
    /// are added; adding more afterwards and calling it again is fine.
    public mutating func finish() {
        var fresh = RollupDeltas()
        for (shape, tally) in shapes { fresh.fold(shape, tally) }
        shapes = [:]
        fresh.deriveCoarserGrains()
        merge(fresh)
    }

    /// Folds the shapes tallied so far into the finest rows only: grain 5 (quarter hours, every
    /// dimension) of the engagement rollups and the hourly mismatch usage. Every other row is a
    /// sum of these, so a group commit stores only them, and the fold, after summing many
    /// commits, derives the rest once (`deriveCoarserGrains`). A commit's events mostly lie in
    /// one quarter hour, so it stores about as many rows as it did hourly ones.
    public mutating func finishFinest() {
        for (shape, tally) in shapes { fold(shape, tally) }
        shapes = [:]
    }

    /// True when the rows are all of a grain a commit stores: the quarter grain (what
    /// `finishFinest` leaves), or grain 0, which a collector of the version before migration
    /// 0100 stores, still running during an upgrade.
    public var holdsOnlyFinestRows: Bool {
        let stored: Set<Int16> = [Grain.quarter, Grain.everyDimension]
        return counts.keys.allSatisfy { stored.contains($0.dimensions.grain) }
            && actions.keys.allSatisfy { stored.contains($0.dimensions.grain) }
            && histograms.keys.allSatisfy { stored.contains($0.dimensions.grain) }
            && usageDaily.isEmpty
    }

    /// Adds the coarser rows implied by the finest ones: grain 0 (and grain 6 of rollup_counts)
    /// from the quarter grain, then rollup_counts grains 1 and 4, rollup_actions and rollup_histograms grains 2 and 3 from
    /// grain 0, and the daily usage. Call it once, on rows that hold only the grains a commit
    /// stores (a second call would count them again).
    public mutating func deriveCoarserGrains() {
        precondition(holdsOnlyFinestRows, "coarser grains are derived once, from the finest rows only")
        func coarser(_ d: Dimensions, _ grain: Int16) -> Dimensions {
            let day = Self.floor(d.bucket, Self.microsecondsPerDay)
            switch grain {
            case Grain.everyDimension:
                var hourly = d
                hourly.grain = grain
                hourly.bucket = Self.floor(d.bucket, Self.microsecondsPerHour)
                return hourly
            case Grain.appVersion, Grain.quarterAppVersion:
                return Dimensions(appId: d.appId, grain: grain, bucket: d.bucket, category: d.category, appVersion: d.appVersion,
                                  platform: "", campaign: "", variant: "")
            case Grain.strata:
                return Dimensions(appId: d.appId, grain: grain, bucket: day, category: d.category, appVersion: d.appVersion,
                                  platform: d.platform, campaign: d.campaign, variant: "")
            case Grain.hourly:
                return Dimensions(appId: d.appId, grain: grain, bucket: d.bucket, category: d.category, appVersion: "",
                                  platform: "", campaign: "", variant: "")
            default: // Grain.daily
                return Dimensions(appId: d.appId, grain: grain, bucket: day, category: d.category, appVersion: "",
                                  platform: "", campaign: "", variant: "")
            }
        }
        for (key, c) in counts where key.dimensions.grain == Grain.quarter {
            for grain in [Grain.everyDimension, Grain.quarterAppVersion] {
                counts[CountsKey(dimensions: coarser(key.dimensions, grain), hasMedia: key.hasMedia), default: Counts()].add(c)
            }
        }
        for (key, n) in actions where key.dimensions.grain == Grain.quarter {
            actions[ActionKey(dimensions: coarser(key.dimensions, Grain.everyDimension), action: key.action), default: 0] += n
        }
        for (key, n) in histograms where key.dimensions.grain == Grain.quarter {
            histograms[HistogramKey(dimensions: coarser(key.dimensions, Grain.everyDimension), metric: key.metric, bin: key.bin), default: 0] += n
        }
        for (key, c) in counts where key.dimensions.grain == Grain.everyDimension {
            for grain in [Grain.appVersion, Grain.strata] {
                counts[CountsKey(dimensions: coarser(key.dimensions, grain), hasMedia: key.hasMedia), default: Counts()].add(c)
            }
        }
        for (key, n) in actions where key.dimensions.grain == Grain.everyDimension {
            for grain in [Grain.hourly, Grain.daily] {
                actions[ActionKey(dimensions: coarser(key.dimensions, grain), action: key.action), default: 0] += n
            }
        }
        for (key, n) in histograms where key.dimensions.grain == Grain.everyDimension {
            for grain in [Grain.hourly, Grain.daily] {
                histograms[HistogramKey(dimensions: coarser(key.dimensions, grain), metric: key.metric, bin: key.bin), default: 0] += n
            }
        }
        for (key, usage) in usageHourly {
            var daily = key
            daily.bucket = Self.floor(key.bucket, Self.microsecondsPerDay)
            mergeDailyUsage(daily, usage)
        }
    }

    /// The finest rows one shape adds (grain 5, hourly usage); `deriveCoarserGrains` does the rest.
    private mutating func fold(_ shape: Shape, _ tally: ShapeTally) {
        let full = Dimensions(appId: shape.appId, grain: Grain.quarter, bucket: shape.quarter, category: shape.category,
                              appVersion: shape.appVersion, platform: shape.platform, campaign: shape.campaign, variant: shape.variant)

        // rollup_counts: every event makes a row, even one counted nowhere.
        var c = Counts()
        let registeredAction = shape.type == .response && shape.action.map { !SystemAction.isSystem($0) } == true
        switch shape.type {
        case .delivered:
            c.delivered = tally.events
            c.mediaRequested = tally.mediaRequested
        case .sent:
            c.sent = tally.events
        case .response:
            if shape.action == SystemAction.open { c.opens = tally.events }
            if shape.action == SystemAction.dismiss { c.dismissals = tally.events }
            if registeredAction {
                c.actions = tally.events
                c.replies = tally.withReplyLength
            }
        }
        counts[CountsKey(dimensions: full, hasMedia: shape.hasMedia), default: Counts()].add(c)

        // rollup_actions and rollup_histograms.
        if registeredAction, let action = shape.action {
            actions[ActionKey(dimensions: full, action: action), default: 0] += tally.events
        }
        for (metricBin, n) in tally.bins {
            let metric = HistogramMetric(rawValue: Int(metricBin >> 16))!
            let bin = Int16(truncatingIfNeeded: metricBin & 0xFFFF)
            histograms[HistogramKey(dimensions: full, metric: metric, bin: bin), default: 0] += n
        }

        // mismatch_usage_hourly.
        let registered: Int16 = shape.categoryRegistered.map { $0 ? 1 : 0 } ?? -1
        mergeHourlyUsage(UsageKey(appId: shape.appId, bucket: Self.floor(shape.quarter, Self.microsecondsPerHour), appVersion: shape.appVersion, platform: shape.platform,
                                  type: shape.type, category: shape.category, action: shape.action ?? "", categoryRegistered: registered),
                         Usage(count: tally.events, firstSeen: tally.first, lastSeen: tally.last))
    }

    // Rows computed earlier, merged in: the fold sums the deltas of many commits this way
    // before it writes each key once.

    public mutating func merge(_ key: CountsKey, _ value: Counts) { counts[key, default: Counts()].add(value) }
    public mutating func merge(_ key: ActionKey, _ n: Int64) { actions[key, default: 0] += n }
    public mutating func merge(_ key: HistogramKey, _ n: Int64) { histograms[key, default: 0] += n }
    public mutating func mergeHourlyUsage(_ key: UsageKey, _ usage: Usage) {
        usageHourly[key, default: Usage(count: 0, firstSeen: usage.firstSeen, lastSeen: usage.lastSeen)].add(usage)
    }
    public mutating func mergeDailyUsage(_ key: UsageKey, _ usage: Usage) {
        usageDaily[key, default: Usage(count: 0, firstSeen: usage.firstSeen, lastSeen: usage.lastSeen)].add(usage)
    }
    /// Every row of `other` (its shapes not yet finished are not rows and are left out).
    public mutating func merge(_ other: RollupDeltas) {
        for (key, value) in other.counts { merge(key, value) }
        for (key, n) in other.actions { merge(key, n) }
        for (key, n) in other.histograms { merge(key, n) }
        for (key, usage) in other.usageHourly { mergeHourlyUsage(key, usage) }
        for (key, usage) in other.usageDaily { mergeDailyUsage(key, usage) }
    }

    /// How many rows the deltas hold, over all five tables.
    public var rowCount: Int { counts.count + actions.count + histograms.count + usageHourly.count + usageDaily.count }

    /// Floor division, so instants before 1970 fall in the bucket that holds them. The one
    /// definition: every hour and day bucket in Core is cut with it.
    public static func floor(_ value: Int64, _ unit: Int64) -> Int64 {
        let q = value / unit
        return (value % unit != 0 && value < 0) ? (q - 1) * unit : q * unit
    }

    /// The histogram bins of a response, as sql/migrations/0010 defines them: reply length for
    /// a registered action carrying one, seconds from delivery for any response but a dismissal.
    static func bins(of event: Event) -> [(HistogramMetric, Int16)] {
        guard event.type == .response, let action = event.actionIdentifier, action != SystemAction.dismiss else { return [] }
        var result: [(HistogramMetric, Int16)] = []
        if let length = event.userTextLength, action != SystemAction.open {
            result.append((.replyLength, Int16(ReplyLengthBins.bin(forLength: Int(length)))))
        }
        if let delivered = event.deliveredAt {
            result.append((.timeToResponse, Int16(LatencyBins.bin(forMicroseconds: event.eventTime.microseconds &- delivered.microseconds))))
        }
        return result
    }
}
