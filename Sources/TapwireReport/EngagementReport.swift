import TapwireCore
import TapwireStore

/// What the engagement rate is a share of: delivered notifications, or, when an app posts no
/// delivered events for a category, the backend's sent count (and the report says so).
public enum EngagementBase: String, Sendable {
    case delivered
    case sent
}

/// One side of the rich vs text-only comparison: its engagement rate with a Wilson 95% interval.
public struct SideEngagement: Sendable, Equatable {
    public var delivered: Int
    public var engaged: Int
    public var rate: Double?
    public var ci95: ConfidenceInterval?

    init(delivered: Int, engaged: Int) {
        self.delivered = delivered
        self.engaged = engaged
        rate = delivered > 0 ? Double(engaged) / Double(delivered) : nil
        // A notification can be answered twice (open, then a button); the interval bounds the
        // share of notifications, so engaged is capped at delivered for it.
        ci95 = ProportionStatistics.wilson(successes: min(engaged, delivered), trials: delivered)
    }
}

/// Rich (media present when the user saw it) against text-only, with the difference in
/// percentage points, Newcombe's interval, the relative lift and a z-test p-value, or
/// "insufficient data" below the minimum sample.
public struct RichUplift: Sendable, Equatable {
    public var rich: SideEngagement
    public var textOnly: SideEngagement
    public var comparison: ProportionComparison

    init(rich: SideEngagement, textOnly: SideEngagement, minimum: MinimumSample) {
        self.rich = rich
        self.textOnly = textOnly
        comparison = ProportionComparison(x1: min(rich.engaged, rich.delivered), n1: rich.delivered,
                                          x2: min(textOnly.engaged, textOnly.delivered), n2: textOnly.delivered, minimum: minimum)
    }

    public var sufficient: Bool { comparison.sufficient }
    /// rich − text-only in percentage points.
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
    public var uplift: RichUplift
    public var media: MediaFailure
    public var timeToResponse: TimeToResponse
    public var daily: [DailyPoint]

    public var baseCount: Int { base == .delivered ? delivered : sent }
    public var displayName: String {
        guard let category else { return "All categories" }
        return category.isEmpty ? "(no category)" : category
    }
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
    public static let schemaVersion = 1

    public var app: String
    public var from: Timestamp
    public var to: Timestamp
    public var timeZone: String
    public var filters: ReportFilters
    public var groupBy: ReportDimension?
    public var source: ReportSource
    public var generatedAt: Timestamp
    public var minimumSample: MinimumSample
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

    public init(minimumSample: MinimumSample = .default) { self.minimumSample = minimumSample }

    /// `manifests`: the manifest in force per app version (ManifestStore.currentManifests).
    public func build(app: String, scope: ReportScope, data: ReportData, manifests: [String: Manifest],
                      generatedAt: Timestamp) -> EngagementReport {
        let (categories, overall) = section(counts: data.counts, actions: data.actions, histograms: data.histograms,
                                            days: data.days, manifests: manifests)
        var groups: [ReportGroup] = []
        if let dimension = scope.groupBy {
            let values = Set(data.counts.map(\.group)).union(data.actions.map(\.group)).sorted()
            for value in values {
                let (groupCategories, groupOverall) = section(
                    counts: data.counts.filter { $0.group == value }, actions: data.actions.filter { $0.group == value },
                    histograms: data.histograms.filter { $0.group == value }, days: data.days, manifests: manifests)
                groups.append(ReportGroup(dimension: dimension, value: value, categories: groupCategories, overall: groupOverall))
            }
        }
        return EngagementReport(app: app, from: scope.from, to: scope.to, timeZone: scope.timeZone, filters: scope.filters,
                                groupBy: scope.groupBy, source: scope.source, generatedAt: generatedAt,
                                minimumSample: minimumSample, days: data.days, categories: categories, overall: overall,
                                groups: groups)
    }

    func section(counts: [ReportCountRow], actions: [ReportActionRow], histograms: [ReportHistogramRow], days: [String],
                 manifests: [String: Manifest]) -> ([CategoryEngagement], CategoryEngagement) {
        let names = Set(counts.map(\.category)).union(actions.map(\.category))
        var categories: [CategoryEngagement] = names.map { name in
            let dismiss = dismissStats(category: name, rows: counts.filter { $0.category == name }, manifests: manifests)
            return engagement(category: name, title: title(of: name, manifests: manifests),
                              counts: counts.filter { $0.category == name }, actions: actions.filter { $0.category == name },
                              histograms: histograms.filter { $0.category == name }, days: days, dismiss: dismiss)
        }
        categories.sort { ($0.baseCount, $1.displayName) > ($1.baseCount, $0.displayName) }
        let measured = categories.filter(\.dismiss.measurable)
        let overallDismiss: DismissStats
        if measured.isEmpty {
            overallDismiss = .notMeasurable
        } else {
            let count = measured.reduce(0) { $0 + ($1.dismiss.count ?? 0) }
            let base = measured.reduce(0) { $0 + ($1.dismiss.base ?? 0) }
            overallDismiss = DismissStats(measurable: true, count: count, rate: base > 0 ? Double(count) / Double(base) : nil, base: base)
        }
        let overall = engagement(category: nil, title: nil, counts: counts, actions: actions, histograms: histograms, days: days,
                                 dismiss: overallDismiss)
        return (categories, overall)
    }

    func engagement(category: String?, title: String?, counts: [ReportCountRow], actions: [ReportActionRow],
                    histograms: [ReportHistogramRow], days: [String], dismiss: DismissStats) -> CategoryEngagement {
        var delivered = 0, sent = 0, opens = 0, customActions = 0, replies = 0, requested = 0, notShown = 0
        var richDelivered = 0, richEngaged = 0, textDelivered = 0, textEngaged = 0
        var daily: [String: (delivered: Int, engaged: Int)] = [:]
        for row in counts {
            delivered += row.delivered
            sent += row.sent
            opens += row.opens
            customActions += row.actions
            replies += row.replies
            requested += row.mediaRequested
            let engaged = row.opens + row.actions
            if row.hasMedia {
                richDelivered += row.delivered
                richEngaged += engaged
            } else {
                textDelivered += row.delivered
                textEngaged += engaged
                notShown += row.mediaRequested
            }
            daily[row.day, default: (0, 0)].delivered += row.delivered
            daily[row.day, default: (0, 0)].engaged += engaged
        }
        let engaged = opens + customActions
        let base: EngagementBase = delivered == 0 && sent > 0 ? .sent : .delivered
        let baseCount = base == .delivered ? delivered : sent
        var perAction: [String: Int] = [:]
        for row in actions { perAction[row.action, default: 0] += row.count }
        let actionList = perAction.map { ActionCount(identifier: $0.key, count: $0.value,
                                                     rate: baseCount > 0 ? Double($0.value) / Double(baseCount) : nil) }
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
            textReplies: TextReplies(count: replies,
                                     p50Length: replyLengths.percentileBin(0.5).map { Int(ReplyLengthBins.value(ofBin: $0)) },
                                     p90Length: replyLengths.percentileBin(0.9).map { Int(ReplyLengthBins.value(ofBin: $0)) }),
            dismiss: dismiss, engaged: engaged, base: base,
            engagementRate: baseCount > 0 ? Double(engaged) / Double(baseCount) : nil,
            engagementCI95: ProportionStatistics.wilson(successes: min(engaged, baseCount), trials: baseCount),
            uplift: RichUplift(rich: SideEngagement(delivered: richDelivered, engaged: richEngaged),
                               textOnly: SideEngagement(delivered: textDelivered, engaged: textEngaged), minimum: minimumSample),
            media: MediaFailure(requested: requested, notShown: notShown),
            timeToResponse: TimeToResponse(samples: latencies.total,
                                           p50Seconds: latencies.percentileBin(0.5).map(LatencyBins.value(ofBin:)),
                                           p90Seconds: latencies.percentileBin(0.9).map(LatencyBins.value(ofBin:))),
            daily: days.map { DailyPoint(date: $0, delivered: daily[$0]?.delivered ?? 0, engaged: daily[$0]?.engaged ?? 0) })
    }

    /// Measurable for the app versions in scope whose manifest registers the category with
    /// customDismissAction; count and rate cover exactly those versions.
    func dismissStats(category: String, rows: [ReportCountRow], manifests: [String: Manifest]) -> DismissStats {
        let measurableVersions = Set(rows.map(\.appVersion)).filter {
            manifests[$0]?.category(category)?.hasCustomDismissAction == true
        }
        guard !measurableVersions.isEmpty else { return .notMeasurable }
        let measured = rows.filter { measurableVersions.contains($0.appVersion) }
        let count = measured.reduce(0) { $0 + $1.dismissals }
        let base = measured.reduce(0) { $0 + $1.delivered }
        return DismissStats(measurable: true, count: count, rate: base > 0 ? Double(count) / Double(base) : nil, base: base)
    }

    func title(of category: String, manifests: [String: Manifest]) -> String? {
        for version in manifests.keys.sorted(by: >) {
            if let title = manifests[version]?.category(category)?.title { return title }
        }
        return nil
    }
}
