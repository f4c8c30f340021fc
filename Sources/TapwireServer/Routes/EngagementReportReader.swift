import TapwireReport
import TapwireStore

/// The engagement report the report routes render (DatabaseReports.swift): the report, its
/// findings sections when the format shows them, and how far the database read lags its primary.
public protocol EngagementReportReader: Sendable {
    func report(appId: Int64, appName: String, request: ReportRequest, withFindings: Bool) async throws(APIError)
        -> (report: EngagementReport, findings: FindingsReport?, standby: StandbyStatus)
}
