import TapwireCore
import TapwireStore

/// Every family's findings of one app as of an instant, read from the rollups: the category
/// mismatches over a window ending at the instant (MismatchStore), and the release-regression
/// check as of it (RegressionLookStore: the collectors' stored look, or RegressionStore's check).
/// What `tapwire alerts`, `GET /v1/findings` and the engagement report's findings sections show;
/// a third family adds its store's call here.
public struct FindingsService: Sendable {
    public var mismatchRules: MismatchRules
    public var regression: RegressionConfiguration

    public init(mismatchRules: MismatchRules = MismatchRules(), regression: RegressionConfiguration = .default) {
        self.mismatchRules = mismatchRules
        self.regression = regression
    }

    /// Mismatches over [since, asOf), regressions as of `asOf`: the look the collectors stored
    /// for that hour when `look` is `.current` and one applies, else computed now.
    public func report(appId: Int64, appName: String, since: Timestamp, asOf: Timestamp, look: RegressionLookStore.Request,
                       on connection: PostgresConnection) throws(DatabaseError) -> FindingsReport {
        let mismatches = try MismatchStore(rules: mismatchRules).report(appId: appId, appName: appName, since: since, until: asOf,
                                                                         on: connection)
        let regressions = try RegressionLookStore(configuration: regression).look(appId: appId, asOf: asOf, request: look, on: connection)
        return FindingsReport(app: appName, asOf: asOf, mismatches: mismatches, regressions: regressions)
    }
}
