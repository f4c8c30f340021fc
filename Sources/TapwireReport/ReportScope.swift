import TapwireCore
import TapwireStatistics

/// Optional filters, one per dimension; a dimension without one matches everything. A missing
/// campaign or variant matches "".
public struct ReportFilters: Sendable, Equatable {
    public private(set) var values: [ReportDimension: String] = [:]

    public init(_ values: [ReportDimension: String] = [:]) {
        self.values = values
    }

    public init(appVersion: String? = nil, platform: String? = nil, campaign: String? = nil, variant: String? = nil, os: String? = nil) {
        values[.appVersion] = appVersion
        values[.platform] = platform
        values[.campaign] = campaign
        values[.variant] = variant
        values[.os] = os
    }

    public subscript(dimension: ReportDimension) -> String? {
        get { values[dimension] }
        set { values[dimension] = newValue }
    }

    public var isEmpty: Bool { values.isEmpty }

    /// The filters set, in the dimensions' order.
    public var pairs: [(ReportDimension, String)] {
        ReportDimension.allCases.compactMap { dimension in values[dimension].map { (dimension, $0) } }
    }

    /// Whether an event with these values passes.
    public func passes(_ event: DimensionValues) -> Bool {
        values.allSatisfy { event[$0.key] == $0.value }
    }

    /// One element per dimension, in `ReportDimension.allCases` order, NULL where there is no filter:
    /// the parameter sql/queries/report_raw_*.sql pass to tapwire_event_matches() (migration 0150).
    var sqlArray: [String?] { ReportDimension.allCases.map { values[$0] } }
}

/// Where the report's numbers are read from. `.rollups` is the product, and what an unfiltered
/// report reads; `.rawEvents` computes every figure from events in SQL: the oracle the tests and
/// the benchmark hold the rollups equal to, and what a filtered or grouped report reads
/// (docs/reports.md, "What each report reads").
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

    public init(appId: Int64, from: Timestamp, to: Timestamp, timeZone: String = "UTC", filters: ReportFilters = ReportFilters(),
                groupBy: ReportDimension? = nil, source: ReportSource = .rollups) {
        self.appId = appId
        self.from = from
        self.to = to
        self.timeZone = timeZone
        self.filters = filters
        self.groupBy = groupBy
        self.source = source
    }

    /// The rollups keep no dimension a filter or a group could pick out, so such a report reads
    /// the events of its range (exact, at a cost that grows with them: docs/reports.md).
    public var readsEvents: Bool { source == .rawEvents || !filters.isEmpty || groupBy != nil }
}
