import TapwireCore
import TapwireStatistics

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

extension ReportScope {
    /// The one check of a range: not empty, not longer than `PostgresReportReader.maxRangeDays`.
    public func validate() throws(ReportError) {
        guard from < to else {
            throw ReportError(.invalidRange, "from (\(from)) must be before to (\(to)); a --to date includes that whole day")
        }
        guard to.microseconds - from.microseconds <= PostgresReportReader.maxRangeDays * 86_400_000_000 else {
            throw ReportError(.invalidRange, "the range is longer than \(PostgresReportReader.maxRangeDays) days; ask for a shorter one")
        }
    }
}
