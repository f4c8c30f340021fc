import TapwireCore
import TapwireStatistics

/// The counters of one category and side (rich or text-only) over part of a range.
public struct ReportTotalsRow: Sendable, Equatable {
    /// The `--by` value ("" without one).
    public var group: String
    public var category: String
    public var hasMedia: Bool
    /// The UTC day (days since 1970-01-01) when the row covers part of a day the range cuts;
    /// nil for the range's whole UTC days. A cut day is one stratum of the adjusted difference.
    public var cutDay: Int?
    public var counts: RollupDeltas.Counts

    public init(group: String = "", category: String, hasMedia: Bool, cutDay: Int? = nil, counts: RollupDeltas.Counts) {
        self.group = group
        self.category = category
        self.hasMedia = hasMedia
        self.cutDay = cutDay
        self.counts = counts
    }
}

/// Delivered and engaged of one category on one local day: the daily engagement line.
public struct ReportTrendRow: Sendable, Equatable {
    public var group: String
    public var category: String
    /// The local date, YYYY-MM-DD.
    public var day: String
    public var delivered: Int
    public var engaged: Int

    public init(group: String = "", category: String, day: String, delivered: Int, engaged: Int) {
        self.group = group
        self.category = category
        self.day = day
        self.delivered = delivered
        self.engaged = engaged
    }
}

/// Delivered and dismissals of one category and app version: the dismiss base.
public struct ReportDismissRow: Sendable, Equatable {
    public var group: String
    public var category: String
    public var appVersion: String
    public var delivered: Int
    public var dismissals: Int

    public init(group: String = "", category: String, appVersion: String, delivered: Int, dismissals: Int) {
        self.group = group
        self.category = category
        self.appVersion = appVersion
        self.delivered = delivered
        self.dismissals = dismissals
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

/// The sums over the strata (campaign × platform) of one category on one whole UTC day of the
/// range: what the adjusted difference and its daily looks add up (rollup_uplift_days,
/// tapwire_uplift_terms in migration 0150).
public struct ReportUpliftDayRow: Sendable, Equatable {
    /// The sums over every group's strata: what the report as a whole shows. With `--by` a
    /// group by a dimension the strata do not keep splits strata, whose terms do not add up, so
    /// the whole report has rows of its own.
    public var wholeReport: Bool
    public var group: String
    public var category: String
    /// Days since 1970-01-01.
    public var utcDay: Int
    public var day: UpliftDay

    public init(wholeReport: Bool = true, group: String = "", category: String, utcDay: Int, day: UpliftDay) {
        self.wholeReport = wholeReport
        self.group = group
        self.category = category
        self.utcDay = utcDay
        self.day = day
    }
}

/// Everything the report engine needs from the database for one scope, read in one snapshot.
public struct ReportData: Sendable, Equatable {
    /// Every local date of the range, in order (days without data included).
    public var days: [String]
    /// Several rows may share a key (whole days and cut parts, rollups and edge minutes): the
    /// builder adds them.
    public var totals: [ReportTotalsRow]
    public var trend: [ReportTrendRow]
    /// Only the versions whose dismissals are measurable may be here; others are ignored.
    public var dismiss: [ReportDismissRow]
    public var actions: [ReportActionRow]
    public var histograms: [ReportHistogramRow]
    public var uplift: [ReportUpliftDayRow]

    public init(days: [String], totals: [ReportTotalsRow] = [], trend: [ReportTrendRow] = [], dismiss: [ReportDismissRow] = [],
                actions: [ReportActionRow] = [], histograms: [ReportHistogramRow] = [], uplift: [ReportUpliftDayRow] = []) {
        self.days = days
        self.totals = totals
        self.trend = trend
        self.dismiss = dismiss
        self.actions = actions
        self.histograms = histograms
        self.uplift = uplift
    }
}
