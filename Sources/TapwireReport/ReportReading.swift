import TapwireCore
import TapwireStatistics

/// What the report engine needs from wherever its data is kept: local-day edges in a zone, the
/// app's manifests, and the rows of one scope. `PostgresReportReader` is the product's; a test
/// hands the service rows of its own.
public protocol ReportReading {
    /// The midnight starting `fromDate`, the midnight after `toDate`, the midnight starting the day
    /// `sinceDays` - 1 days before today, in `timeZone`, and now.
    func dayEdges(timeZone: String, fromDate: String?, toDate: String?, sinceDays: Int?) throws(ReportFailure)
        -> (from: Timestamp?, to: Timestamp?, since: Timestamp?, now: Timestamp)
    /// The manifest in force per app version.
    func manifests(appId: Int64) throws(ReportFailure) -> [String: Manifest]
    /// The rows of `scope`, in one snapshot. `dismissMeasurable`: the (category, app version)
    /// pairs whose manifest makes dismissals measurable, the only ones whose dismissals matter.
    func read(_ scope: ReportScope, dismissMeasurable: [(category: String, appVersion: String)]) throws(ReportFailure) -> ReportData
}
