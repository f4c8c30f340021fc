import TapwireCore
import TapwireReport
import TapwireStore

/// Findings read on the database threads: every family through `FindingsService`, or one
/// family's alone. A failure that is not the database being away is logged (code, SQLSTATE and
/// statement, never a value).
public struct DatabaseFindings: FindingsReader {
    public let database: DatabaseExecutor
    public let configuration: FindingsConfiguration
    /// Each request's fold (`ReadFold`), taken as it arrives: the collector's shared fold, or
    /// the reader's own.
    public let readFold: @Sendable () -> any ReadFold
    public let logger: Logger

    public init(database: DatabaseExecutor, configuration: FindingsConfiguration,
                readFold: @escaping @Sendable () -> any ReadFold = { OwnFold() }, logger: Logger) {
        self.database = database
        self.configuration = configuration
        self.readFold = readFold
        self.logger = logger
    }

    /// The families' settings with this request's fold.
    private func perRequest() -> FindingsConfiguration {
        var configuration = configuration
        configuration.fold = readFold()
        return configuration
    }

    public func findings(appId: Int64, appName: String, query: FindingsQuery) async throws(APIError) -> FindingsReport {
        let service = FindingsService(perRequest())
        return try answer(await database.perform { (connection) throws(DatabaseError) in
            try service.report(appId: appId, appName: appName, query: query, on: connection)
        }, doing: "the findings", logging: true)
    }

    public func regressions(appId: Int64, query: FindingsQuery) async throws(APIError) -> RegressionCheck {
        let family = ReleaseRegressionFamily(configuration: configuration.regression, fold: readFold())
        return try answer(await database.perform { (connection) throws(DatabaseError) in
            try family.check(appId: appId, query: query, on: connection)
        }, doing: "the findings", logging: true)
    }

    public func mismatches(appId: Int64, appName: String, query: FindingsQuery) async throws(APIError) -> MismatchReport {
        let store = MismatchStore(rules: configuration.mismatchRules, fold: readFold(), manifestCache: configuration.manifestCache)
        return try answer(await database.perform { (connection) throws(DatabaseError) in
            try store.report(appId: appId, appName: appName, since: query.since, until: query.asOf, on: connection)
        }, doing: "the mismatch report", logging: false)
    }

    private func answer<T>(_ result: Result<T, ExecutorError<DatabaseError>>, doing what: String, logging: Bool) throws(APIError) -> T {
        try result.mapError { error in
            if logging, case .failed(let database) = error, !database.isUnavailable {
                logger.log(.error, "findings failed", database.logFields)
            }
            return APIError(error, doing: what) { APIError($0, doing: what) }
        }.get()
    }
}
