import TapwireCore
import TapwireReport
import TapwireStore

/// The engagement report read on the database threads (`EngagementReportService`), with its
/// findings sections when asked and the standby's replay lag. A failure that is not the database
/// being away or a standby's conflict is logged (code, SQLSTATE and statement, never a value).
public struct DatabaseReports: EngagementReportReader {
    public let database: DatabaseExecutor
    public let regression: RegressionConfiguration
    /// Each request's fold (`ReadFold`), taken as it arrives: the collector's shared fold, or
    /// the reader's own.
    public let readFold: @Sendable () -> any ReadFold
    public let logger: Logger
    /// Shared by every report this collector serves, and in a collector with its findings and
    /// manifest reads (`Collector`): each distinct manifest is decoded once.
    let manifestCache: ManifestCache

    public init(database: DatabaseExecutor, regression: RegressionConfiguration,
                readFold: @escaping @Sendable () -> any ReadFold = { OwnFold() }, manifestCache: ManifestCache = ManifestCache(),
                logger: Logger) {
        self.database = database
        self.regression = regression
        self.readFold = readFold
        self.manifestCache = manifestCache
        self.logger = logger
    }

    public func report(appId: Int64, appName: String, request: ReportRequest, withFindings: Bool) async throws(APIError)
        -> (report: EngagementReport, findings: FindingsReport?, standby: StandbyStatus) {
        let regression = self.regression, manifestCache = self.manifestCache
        // Before it queues for a connection: every batch acknowledged before the request is counted.
        let fold = readFold()
        let result = await database.perform { (connection) throws(ReportFailure) in
            let service = EngagementReportService(fold: fold, manifestCache: manifestCache)
            let report = try service.report(appId: appId, appName: appName, request: request, on: connection)
            do throws(DatabaseError) {
                let findings = withFindings ? try service.findings(for: report, appId: appId, regression: regression, on: connection) : nil
                return (report, findings, try StandbyStatus.read(on: connection))
            } catch {
                throw .database(error)
            }
        }
        return try result.mapError { error in
            if case .failed(.database(let database)) = error, !database.isUnavailable, !database.isTransientConflict {
                logger.log(.error, "report failed", database.logFields)
            }
            return APIError(error, doing: "the report") { APIError($0, doing: "the report") }
        }.get()
    }
}
