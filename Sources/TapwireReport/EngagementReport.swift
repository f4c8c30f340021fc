import TapwireCore
import TapwireStatistics
import TapwireStore

/// What the engagement rate is a share of: delivered notifications, or, when an app posts no
/// delivered events for a category, the backend's sent count (and the report says so).
public enum EngagementBase: String, Sendable {
    case delivered
    case sent
}

/// Why an engagement rate over `base` is not meaningful, or nil when it is. Engaged can exceed
/// delivered when responses arrive without their deliveries, or when one notification gets
/// several engaging responses (an open, then a button); a share over 100% would be a lie.
public func engagementNotMeaningful(engaged: Int, base: Int, baseName: String = "delivered") -> String? {
    guard engaged > base else { return nil }
    return "engaged (\(Fmt.count(engaged))) exceeds \(baseName) (\(Fmt.count(base))): responses without their deliveries, "
        + "or several engaging responses to one notification; the rate is not meaningful"
}

/// One side of the rich vs text-only comparison: its engagement rate with a Wilson 95% interval.
/// It is the sum of the side's used cells (`UpliftDay`), so engaged never exceeds delivered.
public struct SideEngagement: Sendable, Equatable {
    public var delivered: Int
    public var engaged: Int
    public var rate: Double?
    public var ci95: ConfidenceInterval?

    init(_ side: UpliftDay.Side) {
        delivered = side.delivered
        engaged = side.engaged
        rate = ProportionStatistics.share(engaged, of: delivered)
        ci95 = ProportionStatistics.wilson(successes: engaged, trials: delivered)
    }
}

/// The rich vs text-only difference adjusted for campaign × platform × UTC day (and for category
/// in "All categories"): Mantel–Haenszel over the strata of the used cells, Sato's interval, the
/// CMH test. Withheld (with the reason) only when no stratum has both sides, or below the minimum
/// sample counted over the strata that have.
public struct AdjustedUplift: Sendable, Equatable {
    public static let method = "mantel-haenszel"

    /// Nil when no stratum has both sides.
    public var estimate: MantelHaenszelRiskDifference?
    /// Strata with both sides present.
    public var strata: Int
    /// Delivered in strata with only one side: they say nothing about the difference.
    public var excludedDelivered: Int
    /// Why the figures are withheld, nil when they are shown.
    public var reason: String?
    /// The same difference read day after day: valid however often the report is opened.
    public var anytime = AnytimeAdjusted()

    public var sufficient: Bool { reason == nil }
    public var difference: Double? { sufficient ? estimate?.difference : nil }
    public var ci95: ConfidenceInterval? { sufficient ? estimate?.ci95 : nil }
    public var pValue: Double? { sufficient ? estimate?.pValue : nil }

    /// `total`: the sums over every day of the range; `dimensions` names the strata in the reason
    /// ("campaign × platform × UTC day").
    init(total: UpliftDay, dimensions: String, minimum: MinimumSample) {
        strata = total.sums.strata
        excludedDelivered = total.sums.excludedTrials
        estimate = MantelHaenszelRiskDifference.estimate(total.sums)
        guard estimate != nil else {
            reason = "no \(dimensions) stratum has both rich and text-only deliveries"
            return
        }
        let both = total.bothSides
        reason = minimum.insufficiency(x1: both.x1, n1: both.n1, x2: both.x2, n2: both.n2).map { "in strata with both sides, " + $0 }
    }
}

/// The adjusted difference looked at once per UTC day, over every day up to it (`AnytimeUplift`,
/// Howard et al. 2021's normal mixture at α = 0.05): a team that opens the report every morning
/// and acts on the first day it excludes zero is wrong at most 5% of the time, which the
/// fixed-horizon interval read daily is not (docs/regressions.md, "Rich vs text-only, day after day").
public struct AnytimeAdjusted: Sendable, Equatable {
    public static let method = "normal-mixture confidence sequence (Howard et al. 2021), alpha 0.05"
    /// The anytime-valid 95% interval at the last look, which covers the whole range; nil when
    /// the adjusted difference is withheld.
    public var ci95: ConfidenceInterval?
    /// The first UTC day (YYYY-MM-DD) whose look's anytime-valid interval excluded zero.
    public var decidedOn: String?
    /// UTC days looked at: the days of the range with data.
    public var looks: Int = 0

    public init(ci95: ConfidenceInterval? = nil, decidedOn: String? = nil, looks: Int = 0) {
        self.ci95 = ci95
        self.decidedOn = decidedOn
        self.looks = looks
    }

    /// The looks of `days` (each day's own sums, in order), kept only when the adjusted figure
    /// itself is shown.
    init(days: [(day: String, sums: UpliftDay)], shown: Bool, minimum: MinimumSample) {
        guard shown, !days.isEmpty else { return }
        let looks = AnytimeUplift.evaluate(looks: days, minimum: minimum)
        ci95 = looks.latest?.withheld == nil ? looks.latest?.estimate?.anytimeValid : nil
        decidedOn = looks.decidedOn
        self.looks = days.count
    }
}

/// How long until the difference is known: the smallest difference detectable now (80% power,
/// two-sided α = 0.05, the adjusted test) and the days until the target one is.
public struct UpliftDetection: Sendable, Equatable {
    public enum TargetSource: String, Sendable {
        /// `--target-difference`.
        case given
        /// The adjusted difference observed, significant at 0.05.
        case observed
        /// 2 pp: the adjusted difference is not significant (or not known).
        case `default`
    }
    public static let defaultTarget = 0.02

    /// A fraction; nil without an adjusted estimate.
    public var minimumDetectableDifference: Double?
    /// A fraction (with the observed sign when observed).
    public var target: Double
    public var targetSource: TargetSource
    /// 0 when already detectable; nil when there is not enough data to say.
    public var daysToDetect: Double?

    public var alreadyDetectable: Bool { daysToDetect == 0 }
}

/// Rich (media present when the user saw it) against text-only: the pooled difference with
/// Newcombe's interval, the relative lift and a z-test p-value; the difference adjusted for the
/// strata; whether pooling misleads (confounded); and how long until it is known.
public struct RichUplift: Sendable, Equatable {
    public var rich: SideEngagement
    public var textOnly: SideEngagement
    /// Pooled over every used cell: what the two groups saw, mix and all.
    public var comparison: ProportionComparison
    public var adjusted: AdjustedUplift
    /// The pooled and adjusted differences disagree in sign, or the pooled one lies outside the
    /// adjusted 95% interval: the mix of campaigns, platforms or days moves the pooled figure.
    public var confounded: Bool
    public var detection: UpliftDetection
    /// Deliveries left out of every rich vs text-only figure because their cell's engagement
    /// exceeds them (see `UpliftDay`).
    public var notMeaningfulDelivered: Int
    /// Engaged responses left out because their cell has no delivery (a `sent`-only category,
    /// a version that posts no `delivered`).
    public var engagedWithoutDeliveries: Int

    /// `days`: each UTC day's sums over its strata, in order (a day the range cuts is one
    /// stratum); `dimensions` names the strata; `rangeDays` is the report's length, so the current
    /// volume is delivered per day in the strata with both sides.
    init(days: [(day: String, sums: UpliftDay)], dimensions: String, minimum: MinimumSample, target: Double?, rangeDays: Double) {
        let total = days.reduce(UpliftDay()) { $0 + $1.sums }
        rich = SideEngagement(total.rich)
        textOnly = SideEngagement(total.textOnly)
        comparison = ProportionComparison(x1: rich.engaged, n1: rich.delivered, x2: textOnly.engaged, n2: textOnly.delivered,
                                          minimum: minimum)
        adjusted = AdjustedUplift(total: total, dimensions: dimensions, minimum: minimum)
        adjusted.anytime = AnytimeAdjusted(days: days, shown: adjusted.sufficient, minimum: minimum)
        confounded = Self.confounded(pooled: comparison.difference, adjusted: adjusted)
        let samples = total.bothSides.n1 + total.bothSides.n2
        detection = Self.detection(adjusted: adjusted, target: target,
                                   samplesPerDay: rangeDays > 0 ? Double(samples) / rangeDays : 0, samples: samples)
        notMeaningfulDelivered = total.notMeaningfulDelivered
        engagedWithoutDeliveries = total.engagedWithoutDeliveries
    }

    static func confounded(pooled: Double?, adjusted: AdjustedUplift) -> Bool {
        guard let pooled, let difference = adjusted.difference, let ci = adjusted.ci95 else { return false }
        return pooled * difference < 0 || !ci.contains(pooled)
    }

    /// The target is the one given, else the adjusted difference when significant at 0.05, else
    /// 2 pp. Days assume the deliveries to come keep the current mix of strata and sides.
    static func detection(adjusted: AdjustedUplift, target: Double?, samplesPerDay: Double, samples: Int) -> UpliftDetection {
        let chosen: (value: Double, source: UpliftDetection.TargetSource)
        if let target {
            chosen = (target, .given)
        } else if let difference = adjusted.difference, let p = adjusted.pValue, p < 0.05, difference != 0 {
            chosen = (difference, .observed)
        } else {
            chosen = (UpliftDetection.defaultTarget, .default)
        }
        let mdd = adjusted.estimate.flatMap { DetectionPower.minimumDetectableDifference(nullVariance: $0.nullVariance) }
        return UpliftDetection(minimumDetectableDifference: mdd, target: chosen.value, targetSource: chosen.source,
                               daysToDetect: DetectionPower.daysToDetect(target: chosen.value, mdd: mdd, samples: samples,
                                                                         samplesPerDay: samplesPerDay))
    }

    public var sufficient: Bool { comparison.sufficient }
    /// Pooled rich − text-only in percentage points.
    public var differencePoints: Double? { comparison.difference.map { $0 * 100 } }
    public var differenceCIPoints: ConfidenceInterval? {
        comparison.differenceCI.map { ConfidenceInterval(lower: $0.lower * 100, upper: $0.upper * 100) }
    }
    public var relativeLift: Double? { comparison.relativeLift }
    public var pValue: Double? { comparison.pValue }
}

/// Dismissals are reported by iOS only for categories registered with customDismissAction;
/// elsewhere the rate is not measurable, which is different from zero.
public struct DismissStats: Sendable, Equatable {
    public var measurable: Bool
    public var count: Int?
    public var rate: Double?
    /// Delivered notifications of the app versions whose manifest makes dismissals measurable.
    public var base: Int?

    public static let notMeasurable = DismissStats(measurable: false, count: nil, rate: nil, base: nil)
}

public struct TextReplies: Sendable, Equatable {
    public var count: Int
    public var p50Length: Int?
    public var p90Length: Int?
}

public struct TimeToResponse: Sendable, Equatable {
    /// Engaged responses that carried their delivery time.
    public var samples: Int
    public var p50Seconds: Double?
    public var p90Seconds: Double?
}

/// Media the payload asked for that iOS did not show (download failed, timed out, too large).
public struct MediaFailure: Sendable, Equatable {
    public var requested: Int
    public var notShown: Int
    public var rate: Double? { requested > 0 ? Double(notShown) / Double(requested) : nil }
}

public struct DailyPoint: Sendable, Equatable {
    /// The local date, YYYY-MM-DD.
    public var date: String
    public var delivered: Int
    public var engaged: Int
}

public struct ActionCount: Sendable, Equatable {
    public var identifier: String
    public var count: Int
    /// count over the engagement base.
    public var rate: Double?
}

/// The engagement of one category, or of all of them (`category == nil`).
public struct CategoryEngagement: Sendable, Equatable {
    public var category: String?
    /// The manifest's human label, when one was registered.
    public var title: String?
    public var delivered: Int
    public var sent: Int
    public var opens: Int
    public var actions: [ActionCount]
    public var textReplies: TextReplies
    public var dismiss: DismissStats
    /// opens + custom actions (text replies are among them).
    public var engaged: Int
    public var base: EngagementBase
    public var engagementRate: Double?
    public var engagementCI95: ConfidenceInterval?
    /// Set when engaged exceeds the base: rate and interval are then withheld.
    public var engagementNotMeaningful: String?
    public var uplift: RichUplift
    public var media: MediaFailure
    public var timeToResponse: TimeToResponse
    public var daily: [DailyPoint]
    /// In an overall: the categories its figures leave out, and why. Empty for a category.
    public var excludedCategories: [OverallExclusion] = []

    public var baseCount: Int { base == .delivered ? delivered : sent }
    public var displayName: String {
        guard let category else { return "All categories" }
        return category.isEmpty ? "(no category)" : category
    }
}

/// A category an overall ("All categories", or a `--by` section's) leaves out of every one of its
/// figures, so that no overall rate mixes a `sent` base with a `delivered` one, and no odd
/// category blanks the others' figures (docs/reports.md, "Which notifications a figure counts").
/// Its own row still shows it.
public struct OverallExclusion: Sendable, Equatable {
    public enum Reason: String, Sendable {
        /// No delivered events: its rates are over `sent`, which the overall's are not.
        case sentBase = "sent_base"
        /// More engaged than delivered: its rate is not meaningful, so its counts are not either.
        case engagementNotMeaningful = "engagement_not_meaningful"
        /// Neither delivered nor sent events: there is nothing to take a rate over.
        case noBase = "no_base"
    }
    public var category: String
    public var reason: Reason
    public var delivered: Int
    public var sent: Int
    public var engaged: Int
}

/// The report split by one dimension's value (`--by`).
public struct ReportGroup: Sendable, Equatable {
    public var dimension: ReportDimension
    public var value: String
    public var categories: [CategoryEngagement]
    public var overall: CategoryEngagement
}

/// The engagement report for one app and range: the single model every renderer draws.
public struct EngagementReport: Sendable, Equatable {
    /// 2: uplift differences are fractions (they were percentage points), with the adjusted
    /// difference, `confounded`, the minimum detectable difference and days to detect.
    public static let schemaVersion = 2

    public var app: String
    public var from: Timestamp
    public var to: Timestamp
    public var timeZone: String
    public var filters: ReportFilters
    public var groupBy: ReportDimension?
    public var source: ReportSource
    public var generatedAt: Timestamp
    public var minimumSample: MinimumSample
    /// `--target-difference` as a fraction; nil: per category, the observed or 2 pp.
    public var targetDifference: Double?
    public var days: [String]
    public var categories: [CategoryEngagement]
    public var overall: CategoryEngagement
    public var groups: [ReportGroup]

    public static let replyLengthResolution = ReplyLengthBins.resolution
    public static let timeToResponseResolution = LatencyBins.resolution
}

/// Turns the rows of one scope into the report model. Pure, so every rule is unit-testable.
public struct EngagementReportBuilder: Sendable {
    public var minimumSample: MinimumSample
    /// A fraction; nil picks one per category (UpliftDetection).
    public var targetDifference: Double?

    /// What the adjusted difference is stratified by, as the reasons name it.
    static let strataDimensions = "campaign × platform × UTC day"

    public init(minimumSample: MinimumSample = .default, targetDifference: Double? = nil) {
        self.minimumSample = minimumSample
        self.targetDifference = targetDifference
    }

    /// `manifests`: the manifest in force per app version (ManifestStore.currentManifests).
    public func build(app: String, scope: ReportScope, data: ReportData, manifests: [String: Manifest],
                      generatedAt: Timestamp) -> EngagementReport {
        // The current volume is the range's: deliveries per day over its length.
        let rangeDays = Double(scope.to.microseconds - scope.from.microseconds) / 86_400_000_000
        var groups: [ReportGroup] = []
        var sections: [String: Section] = [:]
        for row in data.totals { sections[row.group, default: Section()].totals.append(row) }
        for row in data.trend { sections[row.group, default: Section()].trend.append(row) }
        for row in data.dismiss { sections[row.group, default: Section()].dismiss.append(row) }
        for row in data.actions { sections[row.group, default: Section()].actions.append(row) }
        for row in data.histograms { sections[row.group, default: Section()].histograms.append(row) }
        for row in data.uplift where !row.wholeReport { sections[row.group, default: Section()].uplift.append(row) }
        let wholeUplift = data.uplift.filter(\.wholeReport)
        // The report as a whole: every group's rows, and the strata's sums over all of them.
        var everything = Section()
        for value in sections.keys.sorted() {
            let part = sections[value]!
            everything.append(part)
            guard let dimension = scope.groupBy, !part.totals.isEmpty || !part.actions.isEmpty else { continue }
            let (groupCategories, groupOverall) = build(part, days: data.days, rangeDays: rangeDays, manifests: manifests)
            groups.append(ReportGroup(dimension: dimension, value: value, categories: groupCategories, overall: groupOverall))
        }
        everything.uplift = wholeUplift
        let (categories, overall) = build(everything, days: data.days, rangeDays: rangeDays, manifests: manifests)
        return EngagementReport(app: app, from: scope.from, to: scope.to, timeZone: scope.timeZone, filters: scope.filters,
                                groupBy: scope.groupBy, source: scope.source, generatedAt: generatedAt,
                                minimumSample: minimumSample, targetDifference: targetDifference, days: data.days, categories: categories,
                                overall: overall, groups: groups)
    }

    /// The rows of one `--by` value (or of the whole report).
    struct Section {
        var totals: [ReportTotalsRow] = []
        var trend: [ReportTrendRow] = []
        var dismiss: [ReportDismissRow] = []
        var actions: [ReportActionRow] = []
        var histograms: [ReportHistogramRow] = []
        var uplift: [ReportUpliftDayRow] = []

        mutating func append(_ other: Section) {
            totals += other.totals
            trend += other.trend
            dismiss += other.dismiss
            actions += other.actions
            histograms += other.histograms
            uplift += other.uplift
        }
    }

    /// Each category's sums per UTC day (whole days from their rows; a cut day's part as one
    /// stratum, from its totals), in order of the day.
    static func upliftDays(_ section: Section) -> [String: [(utcDay: Int, sums: UpliftDay)]] {
        var whole: [String: [Int: UpliftDay]] = [:]
        for row in section.uplift { whole[row.category, default: [:]][row.utcDay] = row.day }
        struct CutKey: Hashable { var category: String; var day: Int }
        var cells: [CutKey: (rich: (delivered: Int, engaged: Int), text: (delivered: Int, engaged: Int))] = [:]
        for row in section.totals {
            guard let day = row.cutDay else { continue }
            let c = row.counts
            let engaged = Int(RollupDeltas.engaged(opens: c.opens, actions: c.actions))
            var cell = cells[CutKey(category: row.category, day: day)] ?? ((0, 0), (0, 0))
            if row.hasMedia {
                cell.rich = (cell.rich.delivered + Int(c.delivered), cell.rich.engaged + engaged)
            } else {
                cell.text = (cell.text.delivered + Int(c.delivered), cell.text.engaged + engaged)
            }
            cells[CutKey(category: row.category, day: day)] = cell
        }
        for (key, cell) in cells {
            var day = UpliftDay()
            day.add(rich: cell.rich, textOnly: cell.text)
            whole[key.category, default: [:]][key.day] = day
        }
        return whole.mapValues { days in days.keys.sorted().map { ($0, days[$0]!) } }
    }

    static func label(_ utcDay: Int) -> String {
        String(Timestamp.startOfUTCDay(Int64(utcDay)).iso8601(fractionDigits: 0).prefix(10))
    }

    func build(_ section: Section, days: [String], rangeDays: Double,
               manifests: [String: Manifest]) -> ([CategoryEngagement], CategoryEngagement) {
        let names = Set(section.totals.map(\.category)).union(section.actions.map(\.category))
        let totalsByCategory = Dictionary(grouping: section.totals, by: \.category)
        let trendByCategory = Dictionary(grouping: section.trend, by: \.category)
        let dismissByCategory = Dictionary(grouping: section.dismiss, by: \.category)
        let actionsByCategory = Dictionary(grouping: section.actions, by: \.category)
        let histogramsByCategory = Dictionary(grouping: section.histograms, by: \.category)
        let upliftByCategory = Self.upliftDays(section)
        func looks(_ category: String) -> [(day: String, sums: UpliftDay)] {
            (upliftByCategory[category] ?? []).map { (Self.label($0.utcDay), $0.sums) }
        }
        var categories: [CategoryEngagement] = names.map { name in
            engagement(category: name, title: title(of: name, manifests: manifests), totals: totalsByCategory[name] ?? [],
                       trend: trendByCategory[name] ?? [], actions: actionsByCategory[name] ?? [],
                       histograms: histogramsByCategory[name] ?? [], uplift: looks(name), days: days, rangeDays: rangeDays,
                       dismiss: dismissStats(category: name, rows: dismissByCategory[name] ?? [], manifests: manifests))
        }
        categories.sort { ($0.baseCount, $1.displayName) > ($1.baseCount, $0.displayName) }

        // The overall's members: the categories whose rates are over the overall's base and meaningful.
        let base: EngagementBase = categories.contains { $0.delivered > 0 } ? .delivered : .sent
        var excluded: [OverallExclusion] = []
        var members: Set<String> = []
        for c in categories {
            guard let name = c.category else { continue }
            let reason: OverallExclusion.Reason?
            if c.baseCount == 0 {
                reason = c.sent > 0 ? .sentBase : .noBase
            } else if c.base != base {
                reason = .sentBase
            } else if c.engagementNotMeaningful != nil {
                reason = .engagementNotMeaningful
            } else {
                reason = nil
            }
            if let reason {
                excluded.append(OverallExclusion(category: name, reason: reason, delivered: c.delivered, sent: c.sent, engaged: c.engaged))
            } else {
                members.insert(name)
            }
        }
        // Dismissals over the members whose dismiss rate is itself measurable and meaningful.
        let measured = categories.filter { $0.category.map(members.contains) == true && $0.dismiss.rate != nil }
        let overallDismiss: DismissStats
        if measured.isEmpty {
            overallDismiss = .notMeasurable
        } else {
            let count = measured.reduce(0) { $0 + ($1.dismiss.count ?? 0) }
            let base = measured.reduce(0) { $0 + ($1.dismiss.base ?? 0) }
            overallDismiss = DismissStats(measurable: true, count: count, rate: ProportionStatistics.share(count, of: base), base: base)
        }
        // Rich vs text-only takes the used cells of every category: a category without
        // deliveries has none, and an odd cell leaves out only itself. Each day adds the
        // categories in name order, so the sums never depend on hashing.
        var overallDays: [Int: UpliftDay] = [:]
        for name in names.sorted() {
            for (day, sums) in upliftByCategory[name] ?? [] { overallDays[day] = overallDays[day].map { $0 + sums } ?? sums }
        }
        var overall = engagement(category: nil, title: nil, totals: section.totals.filter { members.contains($0.category) },
                                 trend: section.trend.filter { members.contains($0.category) },
                                 actions: section.actions.filter { members.contains($0.category) },
                                 histograms: section.histograms.filter { members.contains($0.category) },
                                 uplift: overallDays.keys.sorted().map { (Self.label($0), overallDays[$0]!) }, days: days,
                                 rangeDays: rangeDays, dismiss: overallDismiss)
        overall.excludedCategories = excluded.sorted { $0.category < $1.category }
        return (categories, overall)
    }

    func engagement(category: String?, title: String?, totals: [ReportTotalsRow], trend: [ReportTrendRow], actions: [ReportActionRow],
                    histograms: [ReportHistogramRow], uplift: [(day: String, sums: UpliftDay)], days: [String], rangeDays: Double,
                    dismiss: DismissStats) -> CategoryEngagement {
        var c = RollupDeltas.Counts(), notShown: Int64 = 0
        for row in totals {
            c.add(row.counts)
            if !row.hasMedia { notShown += row.counts.mediaRequested }
        }
        var daily: [String: (delivered: Int, engaged: Int)] = [:]
        for row in trend {
            daily[row.day, default: (0, 0)].delivered += row.delivered
            daily[row.day, default: (0, 0)].engaged += row.engaged
        }
        let delivered = Int(c.delivered), sent = Int(c.sent), opens = Int(c.opens)
        let engaged = Int(RollupDeltas.engaged(opens: c.opens, actions: c.actions))
        let base: EngagementBase = delivered == 0 && sent > 0 ? .sent : .delivered
        let baseCount = base == .delivered ? delivered : sent
        let notMeaningful = engagementNotMeaningful(engaged: engaged, base: baseCount, baseName: base.rawValue)
        var perAction: [String: Int] = [:]
        for row in actions { perAction[row.action, default: 0] += row.count }
        let actionList = perAction.map { ActionCount(identifier: $0.key, count: $0.value,
                                                     rate: ProportionStatistics.share($0.value, of: baseCount)) }
            .sorted { ($0.count, $1.identifier) > ($1.count, $0.identifier) }
        var replyLengths = BinnedHistogram(), latencies = BinnedHistogram()
        for row in histograms {
            switch row.metric {
            case .replyLength: replyLengths.add(bin: row.bin, count: row.count)
            case .timeToResponse: latencies.add(bin: row.bin, count: row.count)
            }
        }
        return CategoryEngagement(
            category: category, title: title, delivered: delivered, sent: sent, opens: opens, actions: actionList,
            textReplies: TextReplies(count: Int(c.replies),
                                     p50Length: replyLengths.percentileBin(0.5).map { Int(ReplyLengthBins.value(ofBin: $0)) },
                                     p90Length: replyLengths.percentileBin(0.9).map { Int(ReplyLengthBins.value(ofBin: $0)) }),
            dismiss: dismiss, engaged: engaged, base: base,
            engagementRate: ProportionStatistics.share(engaged, of: baseCount),
            engagementCI95: notMeaningful == nil ? ProportionStatistics.wilson(successes: engaged, trials: baseCount) : nil,
            engagementNotMeaningful: notMeaningful,
            uplift: RichUplift(days: uplift, dimensions: category == nil ? "category × " + Self.strataDimensions : Self.strataDimensions,
                               minimum: minimumSample, target: targetDifference, rangeDays: rangeDays),
            media: MediaFailure(requested: Int(c.mediaRequested), notShown: Int(notShown)),
            timeToResponse: TimeToResponse(samples: latencies.total,
                                           p50Seconds: latencies.percentileBin(0.5).map(LatencyBins.value(ofBin:)),
                                           p90Seconds: latencies.percentileBin(0.9).map(LatencyBins.value(ofBin:))),
            daily: days.map { DailyPoint(date: $0, delivered: daily[$0]?.delivered ?? 0, engaged: daily[$0]?.engaged ?? 0) })
    }

    /// Measurable for the app versions in scope whose manifest registers the category with
    /// customDismissAction; count and rate cover exactly those versions.
    func dismissStats(category: String, rows: [ReportDismissRow], manifests: [String: Manifest]) -> DismissStats {
        let measurableVersions = Set(rows.map(\.appVersion)).filter {
            manifests[$0]?.category(category)?.hasCustomDismissAction == true
        }
        guard !measurableVersions.isEmpty else { return .notMeasurable }
        let measured = rows.filter { measurableVersions.contains($0.appVersion) }
        let count = measured.reduce(0) { $0 + $1.dismissals }
        let base = measured.reduce(0) { $0 + $1.delivered }
        return DismissStats(measurable: true, count: count, rate: ProportionStatistics.share(count, of: base), base: base)
    }

    func title(of category: String, manifests: [String: Manifest]) -> String? {
        for version in manifests.keys.sorted(by: >) {
            if let title = manifests[version]?.category(category)?.title { return title }
        }
        return nil
    }
}
