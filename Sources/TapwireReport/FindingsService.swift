import TapwireCore
import TapwireStore

/// Every family's findings of one app as of an instant, read from the rollups: the category
/// mismatches over a window ending at the instant (MismatchStore), and the release-regression
/// check as of it (RegressionStore). What `tapwire alerts`, `GET /v1/findings` and the engagement
/// report's findings sections show; a third family adds its store's call here.
public struct FindingsService: Sendable {
    public var mismatchRules: MismatchRules
    public var regression: RegressionConfiguration

    public init(mismatchRules: MismatchRules = MismatchRules(), regression: RegressionConfiguration = .default) {
        self.mismatchRules = mismatchRules
        self.regression = regression
    }

    /// Mismatches over [since, asOf), regressions as of `asOf`.
    public func report(appId: Int64, appName: String, since: Timestamp, asOf: Timestamp,
                       on connection: PostgresConnection) throws(DatabaseError) -> FindingsReport {
        let mismatches = try MismatchStore(rules: mismatchRules).report(appId: appId, appName: appName, since: since, until: asOf,
                                                                         on: connection)
        let regressions = try RegressionStore(configuration: regression).check(appId: appId, asOf: asOf, on: connection)
        return FindingsReport(app: appName, asOf: asOf, mismatches: mismatches, regressions: regressions)
    }
}
