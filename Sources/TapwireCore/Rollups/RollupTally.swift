/// What a set of stored events adds to every rollup table: the single definition of each
/// aggregate. A group commit computes the finest rows (`finishFinest`: quarter hours, the counts
/// by every dimension, actions and histogram bins by what is read of them; the hourly mismatch
/// usage) from the events its dedup claim found new and appends them in the same transaction;
/// the fold sums many commits' finest rows and derives every table's rows from them once
/// (`derive`); `tapwire rollups rebuild` runs a day's events through it again
/// (docs/architecture.md, "One event's path", step 5; the tables are described in
/// sql/migrations/0150_report_rollups.sql, 0020_mismatch_usage.sql and 0080_release_rollups.sql).
///
/// Events are first tallied by their full shape (everything any rollup keys on, except the
/// histogram bins), so the per-event work is one dictionary update; the rows are then derived
/// from the shapes, which are few.
///
/// The keys hold their texts as `Text` (`RollupText`): Strings for a report's edge minutes and
/// pending quarter hours, the oracle and the tests (`RollupDeltas`); text ids for the rebuild, a
/// commit's finest rows and the fold (`RollupTally<TextId>`), which derive their rows on ids and
/// turn them into bytes only in their COPY rows (docs/benchmarks.md, "The derived rows keyed by
/// text ids", "The fold keyed by text ids"). One derivation serves both.
public typealias RollupDeltas = RollupTally<String>

public struct RollupTally<Text: RollupText>: Sendable, Equatable {
    /// The rows derived from these, keyed by the same texts.
    public typealias Rows = RollupTables<Text>
    public typealias Counts = RollupCounts
    public typealias Usage = RollupUsage

    /// The `grain` of a finest row in rollup_delta_batches.
    public enum Grain {
        /// Quarter hours: what a commit stores (counts by every dimension, actions and bins by fewer).
        public static var quarter: Int16 { 5 }
        /// Hours, by every dimension but the OS: what a collector older than migration 0100
        /// stored. Read as the hour's first quarter hour.
        public static var everyDimension: Int16 { 0 }
    }

    /// The dimensions every finest row is keyed by; an old collector's grain-0 row keeps '' for
    /// what it did not have (the OS).
    public struct Dimensions: Hashable, Sendable {
        public var appId: Int64
        public var grain: Int16
        /// Start of the quarter hour (the hour for an old collector's grain 0), µs since 1970.
        public var bucket: Int64
        @Bytewise public var category: Text
        @Bytewise public var appVersion: Text
        @Bytewise public var platform: Text
        @Bytewise public var campaign: Text
        @Bytewise public var variant: Text
        /// The OS major version (`ReportDimension.osMajor`); nil when unknown: the rows of a batch a
        /// collector older than migration 0150 appended, which carried none. Those add no OS
        /// marginal (migration 0150 counted their events' OS from the events instead).
        @Bytewise public var os: Text?

        public init(appId: Int64, grain: Int16, bucket: Int64, category: Text, appVersion: Text, platform: Text,
                    campaign: Text, variant: Text, os: Text? = Text.empty) {
            self.appId = appId
            self.grain = grain
            self.bucket = bucket
            self.category = category
            self.appVersion = appVersion
            self.platform = platform
            self.campaign = campaign
            self.variant = variant
            self.os = os
        }

        /// The dimensions a registered action's finest row keeps: the category (the totals) and
        /// the release (version and platform, the release check's rows). `derive` reads no other.
        public var ofActions: Dimensions {
            Dimensions(appId: appId, grain: grain, bucket: bucket, category: category, appVersion: appVersion, platform: platform,
                       campaign: .empty, variant: .empty, os: .empty)
        }

        /// The dimensions a histogram bin's finest row keeps: the category, all `derive` and a
        /// report's pending quarter hours read of a bin.
        public var ofHistograms: Dimensions {
            Dimensions(appId: appId, grain: grain, bucket: bucket, category: category, appVersion: .empty, platform: .empty,
                       campaign: .empty, variant: .empty, os: .empty)
        }

        /// What filters test and `--by` groups on.
        public var values: DimensionFields<Text> {
            DimensionFields(appVersion: appVersion, platform: platform, campaign: campaign, variant: variant, os: os ?? .empty)
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

    public struct ActionKey: Hashable, Sendable {
        public var dimensions: Dimensions
        @Bytewise public var action: Text
        public init(dimensions: Dimensions, action: Text) {
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
        @Bytewise public var appVersion: Text
        @Bytewise public var platform: Text
        public var type: EventType
        @Bytewise public var category: Text
        /// '' for events without an action (delivered, sent).
        @Bytewise public var action: Text
        /// The device's categoryRegistered: 1 true, 0 false, -1 not reported.
        public var categoryRegistered: Int16

        public init(appId: Int64, bucket: Int64, appVersion: Text, platform: Text, type: EventType, category: Text,
                    action: Text, categoryRegistered: Int16) {
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

    public private(set) var counts: [CountsKey: Counts] = [:]
    public private(set) var actions: [ActionKey: Int64] = [:]
    public private(set) var histograms: [HistogramKey: Int64] = [:]
    public private(set) var usageHourly: [UsageKey: Usage] = [:]

    /// Everything any rollup keys on, except histogram bins: its texts as ids of `texts`, so that
    /// hashing and comparing a shape reads a few words, not eight Strings.
    private struct Shape: Hashable, Sendable {
        var appId: Int64
        var quarter: Int64
        var appVersion: Int32
        var platform: Int32
        var category: Int32
        var campaign: Int32
        var variant: Int32
        var os: Int32
        /// -1: none.
        var action: Int32
        var type: EventType
        var hasMedia: Bool
        var categoryRegistered: Bool?

        /// One word of the fields, mixed, fed to the hasher: a shape is hashed once per event,
        /// and twelve fields fed one by one cost more than the rest of the lookup.
        func hash(into hasher: inout Hasher) {
            let type: UInt64
            switch self.type {
            case .delivered: type = 1
            case .response: type = 2
            case .sent: type = 3
            case .conversion: type = 4
            case .assignment: type = 5
            }
            func mix(_ h: UInt64, _ word: UInt64) -> UInt64 { (h ^ word ^ (h >> 29)) &* 0xBF58_476D_1CE4_E5B9 }
            func pair(_ a: Int32, _ b: Int32) -> UInt64 { UInt64(UInt32(bitPattern: a)) << 32 | UInt64(UInt32(bitPattern: b)) }
            var h = mix(UInt64(bitPattern: appId), UInt64(bitPattern: quarter))
            h = mix(h, pair(appVersion, platform))
            h = mix(h, pair(category, campaign))
            h = mix(h, pair(variant, os))
            h = mix(h, UInt64(UInt32(bitPattern: action)) << 32 | type << 8 | UInt64(hasMedia ? 1 : 0) << 4
                        | UInt64(categoryRegistered.map { $0 ? 1 : 2 } ?? 0))
            hasher.combine(h ^ (h >> 32))
        }
    }

    private struct ShapeTally: Equatable, Sendable {
        var events: Int64 = 0
        var mediaRequested: Int64 = 0
        var withReplyLength: Int64 = 0
        var first = Timestamp(microseconds: .max)
        var last = Timestamp(microseconds: .min)
    }

    /// A histogram bin's events as the tally counts them: by what `derive` reads of a bin (its
    /// quarter hour and category), not by shape.
    private struct BinKey: Hashable, Sendable {
        var appId: Int64
        var quarter: Int64
        var category: Int32
        var metric: HistogramMetric
        var bin: Int16
    }

    /// One event as the tally reads it, its texts given as ids of the deltas' `texts`: a rebuild
    /// numbers the bytes it reads (`TextIds.id`), with no String or `Event` per event.
    public struct EventFields: Sendable {
        public var appId: Int64
        public var type: EventType
        public var eventTime: Timestamp
        public var category: Int32
        /// -1: none.
        public var action: Int32
        public var userTextLength: Int32?
        public var hasMedia: Bool
        public var mediaRequested: Bool?
        public var categoryRegistered: Bool?
        /// The id of '' when the event has none.
        public var campaign: Int32
        public var variant: Int32
        public var deliveredAt: Timestamp?
        public var appVersion: Int32
        public var platform: Int32
        /// -1: none.
        public var osVersion: Int32

        public init(appId: Int64, type: EventType, eventTime: Timestamp, category: Int32, action: Int32, userTextLength: Int32?,
                    hasMedia: Bool, mediaRequested: Bool?, categoryRegistered: Bool?, campaign: Int32, variant: Int32,
                    deliveredAt: Timestamp?, appVersion: Int32, platform: Int32, osVersion: Int32) {
            self.appId = appId
            self.type = type
            self.eventTime = eventTime
            self.category = category
            self.action = action
            self.userTextLength = userTextLength
            self.hasMedia = hasMedia
            self.mediaRequested = mediaRequested
            self.categoryRegistered = categoryRegistered
            self.campaign = campaign
            self.variant = variant
            self.deliveredAt = deliveredAt
            self.appVersion = appVersion
            self.platform = platform
            self.osVersion = osVersion
        }
    }

    /// The texts of the shapes not yet finished; emptied with them when the keys hold Strings,
    /// kept when they hold ids (`TextId`), which name these texts until the rows are sent.
    public private(set) var texts = TextIds()
    /// Per text id, read once per distinct text: its OS major version's id (-1 until computed)
    /// and, as an action, what it is (`ActionKind`).
    private var osMajorIds: [Int32] = []
    private var actionKinds: [ActionKind?] = []
    private var shapeIndex: [Shape: Int32] = [:]
    private var shapes: [Shape] = []
    private var tallies: [ShapeTally] = []
    private var bins: [BinKey: Int64] = [:]

    public init() {}

    public static var microsecondsPerQuarterHour: Int64 { 900_000_000 }
    public static var microsecondsPerHour: Int64 { 3_600_000_000 }
    public static var microsecondsPerDay: Int64 { 86_400_000_000 }

    /// The events of one request (they share an app and a device context).
    public mutating func add<Events: Sequence>(_ events: Events, appId: Int64, context: DeviceContext) where Events.Element == Event {
        for event in events { add(event, appId: appId, context: context) }
    }

    @_specialize(where Text == String)
    @_specialize(where Text == TextId)
    public mutating func add(_ event: Event, appId: Int64, context: DeviceContext) {
        guard event.type != .conversion, event.type != .assignment else { return }
        add(EventFields(appId: appId, type: event.type, eventTime: event.eventTime, category: texts.id(event.category),
                        action: event.actionIdentifier.map { texts.id($0) } ?? -1, userTextLength: event.userTextLength,
                        hasMedia: event.hasMedia, mediaRequested: event.mediaRequested, categoryRegistered: event.categoryRegistered,
                        campaign: texts.id(event.campaign ?? ""), variant: texts.id(event.variant ?? ""), deliveredAt: event.deliveredAt,
                        appVersion: texts.id(context.appVersion), platform: texts.id(context.platform),
                        osVersion: context.osVersion.map { texts.id($0) } ?? -1))
    }

    /// Room for this many shapes (a rebuild passes the previous day's), so the tally does not
    /// rehash as it grows.
    public mutating func reserveShapes(_ count: Int) {
        shapeIndex.reserveCapacity(count)
        shapes.reserveCapacity(count)
        tallies.reserveCapacity(count)
    }

    /// The id of a text's UTF-8 bytes in `texts`, for `EventFields`.
    @_specialize(where Text == String)
    @_specialize(where Text == TextId)
    public mutating func textId(_ bytes: RawSpan) -> Int32 { texts.id(bytes) }

    /// A key's text from its UTF-8 bytes: the String, or the id of the bytes in `texts` (the
    /// fold reads the commits' rows so, docs/benchmarks.md, "The fold keyed by text ids").
    @_specialize(where Text == String)
    @_specialize(where Text == TextId)
    public mutating func text(_ bytes: RawSpan) -> Text { Text.text(utf8: bytes, numberingIn: &texts) }

    /// How many shapes are tallied and not yet finished.
    public var shapeCount: Int { shapes.count }

    /// The per-event work: one lookup of the event's shape.
    @_specialize(where Text == String)
    @_specialize(where Text == TextId)
    public mutating func add(_ event: EventFields) {
        // Conversions are counted by attribution (docs/outcomes.md) and assignments by the holdout
        // aggregates (docs/holdouts.md), not by engagement's rollups.
        guard event.type != .conversion, event.type != .assignment else { return }
        let shape = Shape(appId: event.appId, quarter: Self.floor(event.eventTime.microseconds, Self.microsecondsPerQuarterHour),
                          appVersion: event.appVersion, platform: event.platform, category: event.category,
                          campaign: event.campaign, variant: event.variant, os: osMajorId(event.osVersion),
                          action: event.action, type: event.type, hasMedia: event.hasMedia,
                          categoryRegistered: event.categoryRegistered)
        // One lookup, inserting the shape if it is new.
        let next = Int32(shapes.count)
        func found(_ slot: inout Int32) -> Int {
            if slot < 0 { slot = next }
            return Int(slot)
        }
        let index = found(&shapeIndex[shape, default: -1])
        if index == shapes.count {
            shapes.append(shape)
            tallies.append(ShapeTally())
        }
        tallies[index].events += 1
        if event.mediaRequested == true { tallies[index].mediaRequested += 1 }
        if event.userTextLength != nil { tallies[index].withReplyLength += 1 }
        if event.eventTime < tallies[index].first { tallies[index].first = event.eventTime }
        if event.eventTime > tallies[index].last { tallies[index].last = event.eventTime }
        if event.type == .response {
            Self.bins(type: event.type, action: event.action < 0 ? nil : actionKind(event.action), userTextLength: event.userTextLength,
                      eventTime: event.eventTime, deliveredAt: event.deliveredAt) { metric, bin in
                bins[BinKey(appId: shape.appId, quarter: shape.quarter, category: shape.category, metric: metric, bin: bin), default: 0] += 1
            }
        }
    }

    /// The id of the OS major version of text `id` (-1: none), `ReportDimension.osMajor` read once per text.
    private mutating func osMajorId(_ id: Int32) -> Int32 {
        if id < 0 { return texts.id("") }
        let at = Int(id)
        if at >= osMajorIds.count { osMajorIds.append(contentsOf: repeatElement(-1, count: texts.count - osMajorIds.count)) }
        if osMajorIds[at] < 0 { osMajorIds[at] = texts.id(ReportDimension.osMajor(texts.strings[at])) }
        return osMajorIds[at]
    }

    /// What an action identifier is to the rollups.
    enum ActionKind: Sendable {
        case open, dismiss, registered
        init(_ identifier: String) {
            self = identifier == SystemAction.open ? .open : identifier == SystemAction.dismiss ? .dismiss : .registered
        }
    }

    private mutating func actionKind(_ id: Int32) -> ActionKind {
        let at = Int(id)
        if at >= actionKinds.count { actionKinds.append(contentsOf: repeatElement(nil, count: texts.count - actionKinds.count)) }
        if let kind = actionKinds[at] { return kind }
        let kind = ActionKind(texts.strings[at])
        actionKinds[at] = kind
        return kind
    }

    /// Folds the shapes tallied so far into the finest rows: quarter hours by every dimension
    /// (counts), by category and release (registered actions), by category (histogram bins), and
    /// the hourly mismatch usage. Every table's rows are sums of these (`derive`), so a group
    /// commit stores only them, and the fold, after summing many commits, derives the rest once.
    /// Adding more events afterwards and calling it again is fine.
    @_specialize(where Text == String)
    @_specialize(where Text == TextId)
    public mutating func finishFinest() {
        for (shape, tally) in zip(shapes, tallies) { fold(shape, tally) }
        for (key, n) in bins {
            let dimensions = Dimensions(appId: key.appId, grain: Grain.quarter, bucket: key.quarter, category: Text.text(key.category, of: texts),
                                        appVersion: .empty, platform: .empty, campaign: .empty, variant: .empty, os: .empty)
            histograms[HistogramKey(dimensions: dimensions, metric: key.metric, bin: key.bin), default: 0] += n
        }
        // Keys of ids refer to the texts: they stay, and so does what was read of them.
        if !Text.refersToTexts {
            texts = TextIds()
            osMajorIds = []
            actionKinds = []
        }
        shapeIndex = [:]
        shapes = []
        tallies = []
        bins = [:]
    }

    /// Every table's rows implied by the finest rows held (the shapes not yet finished are left
    /// out): the one derivation the fold, the rebuild and the tests use. `blocksOfDays: false`
    /// leaves out the blocks of 2 to 16 days (grains 3 to 6) and keeps the quarter hours and the
    /// day: the rebuild makes each block once from its days' rows (`RollupStore.forEachDay`),
    /// so what it would add to them here is work thrown away.
    @_specialize(where Text == String)
    @_specialize(where Text == TextId)
    public func derive(blocksOfDays: Bool = true) -> Rows {
        var rows = Rows()
        let grains = blocksOfDays ? Rows.Grain.dayBlocks : [Rows.Grain.day]
        /// The day and each block of days that holds the quarter hour or day `at`.
        func dayBuckets(_ at: Int64) -> [(Int16, Int64)] {
            let day = Self.floor(at, Self.microsecondsPerDay)
            return grains.map { ($0, Rows.Grain.block(of: day, grain: $0)) }
        }
        // The quarter hours' rows from each key; the day's rows (and its blocks') from the keys
        // summed over their day first (a counts key whose bucket is the day, all of one grain): at
        // the real shape a day key holds about five quarter-hour keys, and each row of a day is
        // then one dictionary update, not five.
        var days: [CountsKey: DaySums] = [:]
        for (key, c) in counts {
            let d = key.dimensions
            rows.totals[Rows.TotalsKey(appId: d.appId, grain: Rows.Grain.quarter, bucket: d.bucket, category: d.category,
                                             hasMedia: key.hasMedia), default: Counts()].add(c)
            let engaged = Self.engaged(opens: c.opens, actions: c.actions)
            let counted = c.delivered != 0 || engaged != 0
            if counted {
                rows.trend[Rows.QuarterKey(appId: d.appId, quarter: d.bucket, category: d.category), default: .zero]
                    .add(c.delivered, engaged)
            }
            rows.dismissQuarters[Rows.VersionQuarterKey(appId: d.appId, quarter: d.bucket, category: d.category,
                                                              appVersion: d.appVersion), default: .zero].add(c.delivered, c.dismissals)
            var release = Rows.ReleaseCounts()
            release.add(c)
            rows.releaseCounts[Rows.ReleaseKey(appId: d.appId, hour: Self.floor(d.bucket, Self.microsecondsPerHour),
                                                     category: d.category, appVersion: d.appVersion, platform: d.platform),
                               default: Rows.ReleaseCounts()].add(release)
            var day = key
            day.dimensions.grain = Grain.quarter
            day.dimensions.bucket = Self.floor(d.bucket, Self.microsecondsPerDay)
            days[day, default: DaySums()].add(c, engaged: engaged, counted: counted)
        }
        for (dayKey, sums) in days {
            let shape = dayKey.dimensions
            for (grain, bucket) in dayBuckets(shape.bucket) {
                rows.totals[Rows.TotalsKey(appId: shape.appId, grain: grain, bucket: bucket, category: shape.category,
                                                 hasMedia: dayKey.hasMedia), default: Counts()].add(sums.all)
                // Every version with events has a dismiss row: whether its dismissals are measurable
                // is the manifest's to say, even when it has no delivery in the range.
                rows.dismissBase[Rows.DismissKey(appId: shape.appId, grain: grain, bucket: bucket, category: shape.category,
                                                       appVersion: shape.appVersion), default: .zero].add(sums.all.delivered, sums.all.dismissals)
            }
            if let stratum = sums.stratum {
                rows.strata[Rows.StratumKey(appId: shape.appId, day: shape.bucket, category: shape.category, campaign: shape.campaign,
                                                  platform: shape.platform, hasMedia: dayKey.hasMedia), default: .zero]
                    .add(stratum.first, stratum.second)
            }
            if let marginal = sums.marginal {
                let values = shape.values
                for dimension in ReportDimension.allCases where dimension != .os || shape.os != nil {
                    rows.marginals[Rows.MarginalKey(appId: shape.appId, day: shape.bucket, dimension: dimension, value: values[dimension],
                                                          category: shape.category, hasMedia: dayKey.hasMedia), default: Rows.MarginalCounts()]
                        .add(marginal)
                }
            }
        }
        for (key, n) in actions {
            let d = key.dimensions
            rows.totalActions[Rows.TotalActionKey(appId: d.appId, grain: Rows.Grain.quarter, bucket: d.bucket, category: d.category,
                                                       action: key.action), default: 0] += n
            for (grain, bucket) in dayBuckets(d.bucket) {
                rows.totalActions[Rows.TotalActionKey(appId: d.appId, grain: grain, bucket: bucket, category: d.category,
                                                           action: key.action), default: 0] += n
            }
            rows.releaseActions[Rows.ReleaseActionKey(release: Rows.ReleaseKey(
                appId: d.appId, hour: Self.floor(d.bucket, Self.microsecondsPerHour), category: d.category, appVersion: d.appVersion,
                platform: d.platform), action: key.action), default: 0] += n
        }
        for (key, n) in histograms {
            let d = key.dimensions
            rows.totalHistograms[Rows.TotalBinKey(appId: d.appId, grain: Rows.Grain.quarter, bucket: d.bucket, category: d.category,
                                                       metric: key.metric, bin: key.bin), default: 0] += n
            for (grain, bucket) in dayBuckets(d.bucket) {
                rows.totalHistograms[Rows.TotalBinKey(appId: d.appId, grain: grain, bucket: bucket, category: d.category,
                                                           metric: key.metric, bin: key.bin), default: 0] += n
            }
        }
        for (key, usage) in usageHourly {
            rows.usageHourly[key, default: Usage(count: 0, firstSeen: usage.firstSeen, lastSeen: usage.lastSeen)].add(usage)
            var daily = key
            daily.bucket = Self.floor(key.bucket, Self.microsecondsPerDay)
            rows.usageDaily[daily, default: Usage(count: 0, firstSeen: usage.firstSeen, lastSeen: usage.lastSeen)].add(usage)
        }
        return rows
    }

    /// A day key's quarter-hour keys summed as each day row reads them: every count (totals,
    /// dismiss base); delivered and engaged of the keys the strata count (nil when none is);
    /// every count of the keys the marginals count (nil when none is). Kept apart, so that a
    /// key the quarter-hour rule leaves out is left out of the day too, whatever the signs.
    private struct DaySums {
        var all = Counts()
        var stratum: Rows.Pair?
        var marginal: Counts?

        mutating func add(_ c: Counts, engaged: Int64, counted: Bool) {
            all.add(c)
            if counted { stratum = Rows.Pair(first: (stratum?.first ?? 0) + c.delivered, second: (stratum?.second ?? 0) + engaged) }
            if c.delivered != 0 || c.sent != 0 || c.opens != 0 || c.actions != 0 {
                var sum = marginal ?? Counts()
                sum.add(c)
                marginal = sum
            }
        }
    }

    /// The finest rows one shape adds (grain 5, hourly usage; its bins are added by
    /// `finishFinest`); `derive` does the rest.
    private mutating func fold(_ shape: Shape, _ tally: ShapeTally) {
        let category = Text.text(shape.category, of: texts)
        let appVersion = Text.text(shape.appVersion, of: texts)
        let platform = Text.text(shape.platform, of: texts)
        let action = shape.action < 0 ? nil : Text.text(shape.action, of: texts)
        let full = Dimensions(appId: shape.appId, grain: Grain.quarter, bucket: shape.quarter, category: category,
                              appVersion: appVersion, platform: platform, campaign: Text.text(shape.campaign, of: texts),
                              variant: Text.text(shape.variant, of: texts), os: Text.text(shape.os, of: texts))

        // Counts: every event makes a row, even one counted nowhere.
        var c = Counts()
        let kind = shape.action < 0 ? nil : actionKind(shape.action)
        let registeredAction = shape.type == .response && kind == .registered
        switch shape.type {
        case .delivered:
            c.delivered = tally.events
            c.mediaRequested = tally.mediaRequested
        case .sent:
            c.sent = tally.events
        case .conversion, .assignment:
            break
        case .response:
            if kind == .open { c.opens = tally.events }
            if kind == .dismiss { c.dismissals = tally.events }
            if registeredAction {
                c.actions = tally.events
                c.replies = tally.withReplyLength
            }
        }
        counts[CountsKey(dimensions: full, hasMedia: shape.hasMedia), default: Counts()].add(c)

        // Registered actions, keyed by only what `derive` reads of them (the counts keep every
        // dimension: the strata, marginals and release rows need them); the bins likewise, by
        // category (`finishFinest`). Keyed by every dimension, a response's bin was most often a
        // row of its own: at the real shape 30 % of what a commit appended and the fold took
        // back, 22 % keyed by category (docs/ingestion.md, "The finest rows").
        if registeredAction, let action {
            actions[ActionKey(dimensions: full.ofActions, action: action), default: 0] += tally.events
        }

        // mismatch_usage_hourly.
        let registered: Int16 = shape.categoryRegistered.map { $0 ? 1 : 0 } ?? -1
        mergeHourlyUsage(UsageKey(appId: shape.appId, bucket: Self.floor(shape.quarter, Self.microsecondsPerHour), appVersion: appVersion, platform: platform,
                                  type: shape.type, category: category, action: action ?? .empty, categoryRegistered: registered),
                         Usage(count: tally.events, firstSeen: tally.first, lastSeen: tally.last))
    }

    // Rows computed earlier, merged in: the fold sums the deltas of many commits this way
    // before it writes each key once.

    @_specialize(where Text == String)
    @_specialize(where Text == TextId)
    public mutating func merge(_ key: CountsKey, _ value: Counts) { counts[key, default: Counts()].add(value) }
    @_specialize(where Text == String)
    @_specialize(where Text == TextId)
    public mutating func merge(_ key: ActionKey, _ n: Int64) { actions[key, default: 0] += n }
    @_specialize(where Text == String)
    @_specialize(where Text == TextId)
    public mutating func merge(_ key: HistogramKey, _ n: Int64) { histograms[key, default: 0] += n }
    @_specialize(where Text == String)
    @_specialize(where Text == TextId)
    public mutating func mergeHourlyUsage(_ key: UsageKey, _ usage: Usage) {
        usageHourly[key, default: Usage(count: 0, firstSeen: usage.firstSeen, lastSeen: usage.lastSeen)].add(usage)
    }
    /// Every row of `other` (its shapes not yet finished are not rows and are left out). Keys of
    /// ids name the texts of their own tally: only a tally of Strings merges another.
    @_specialize(where Text == String)
    @_specialize(where Text == TextId)
    public mutating func merge(_ other: RollupTally) {
        for (key, value) in other.counts { merge(key, value) }
        for (key, n) in other.actions { merge(key, n) }
        for (key, n) in other.histograms { merge(key, n) }
        for (key, usage) in other.usageHourly { mergeHourlyUsage(key, usage) }
    }

    /// Every count, action and bin of `other` taken away (a report's quarter hour read whole, less
    /// its rest: TapwireReport/ReportPlan.swift). The hourly usage is left out: its first and last
    /// times cannot be taken away.
    @_specialize(where Text == String)
    @_specialize(where Text == TextId)
    public mutating func subtract(_ other: RollupTally) {
        for (key, value) in other.counts { counts[key, default: Counts()].subtract(value) }
        for (key, n) in other.actions { actions[key, default: 0] -= n }
        for (key, n) in other.histograms { histograms[key, default: 0] -= n }
    }

    /// How many finest rows the deltas hold.
    public var rowCount: Int { counts.count + actions.count + histograms.count + usageHourly.count }

    /// Floor division, so instants before 1970 fall in the bucket that holds them. The one
    /// definition: every hour and day bucket in Core is cut with it.
    public static func floor(_ value: Int64, _ unit: Int64) -> Int64 {
        let q = value / unit
        return (value % unit != 0 && value < 0) ? (q - 1) * unit : q * unit
    }

    /// The histogram bins of a response, as sql/migrations/0010 defines them: reply length for
    /// a registered action carrying one, seconds from delivery for any response but a dismissal.
    static func bins(of event: Event) -> [(HistogramMetric, Int16)] {
        var result: [(HistogramMetric, Int16)] = []
        bins(type: event.type, action: event.actionIdentifier.map(ActionKind.init), userTextLength: event.userTextLength,
             eventTime: event.eventTime, deliveredAt: event.deliveredAt) { result.append(($0, $1)) }
        return result
    }

    /// The one definition of `bins(of:)`, handing each bin to `body` (no array per event).
    private static func bins(type: EventType, action: ActionKind?, userTextLength: Int32?, eventTime: Timestamp, deliveredAt: Timestamp?,
                             _ body: (HistogramMetric, Int16) -> Void) {
        guard type == .response, let action, action != .dismiss else { return }
        if let length = userTextLength, action != .open {
            body(.replyLength, Int16(ReplyLengthBins.bin(forLength: Int(length))))
        }
        if let delivered = deliveredAt {
            body(.timeToResponse, Int16(LatencyBins.bin(forMicroseconds: eventTime.microseconds &- delivered.microseconds)))
        }
    }
}
