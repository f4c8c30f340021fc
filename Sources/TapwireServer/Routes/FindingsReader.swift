import TapwireCore
import TapwireReport

/// The findings the read routes answer with (DatabaseFindings.swift): every family's, or one
/// family's alone for its own endpoint.
public protocol FindingsReader: Sendable {
    /// Every family's findings of an app (`GET /v1/findings`), unfiltered.
    func findings(appId: Int64, appName: String, query: FindingsQuery) async throws(APIError) -> FindingsReport
    /// The release-regression check alone (`GET /v1/reports/regressions`).
    func regressions(appId: Int64, query: FindingsQuery) async throws(APIError) -> RegressionCheck
    /// The category mismatches alone over [since, asOf) (`GET /v1/reports/mismatches`).
    func mismatches(appId: Int64, appName: String, query: FindingsQuery) async throws(APIError) -> MismatchReport
}
