import Foundation
import TapwireCore
import TapwireReport
import TapwireStore

/// The release-regression benchmark of `make bench`: the hourly check (docs/regressions.md, "The
/// hourly check") for an app of 20 categories over 14 days of 10M events, from the release
/// rollups, and `tapwire alerts`' work (both families) on the same data. Every category, version
/// and platform delivers every hour (sql/bench/regression_generate.sql), so the check reads as
/// many rows as such an app can make; the rollups are written by `tapwire rollups rebuild`'s
/// code, the product's own.
public struct RegressionBenchmark: Sendable {
    public struct Options: Sendable {
        public var events = 10_000_000
        public var days = 14
        public var repeats = 7
        /// Time the check over the events and rollups of an earlier run's app (its name), loading
        /// nothing: to iterate on the check without reloading 10M events.
        public var reuseApp: String?
        public init() {}
    }

    public struct Result: Sendable {
        public var events: Int
        public var days: Int
        public var countsRows: Int
        public var actionRows: Int
        public var series: Int
        public var findings: Int
        public var looks: Int
        public var loadSeconds: Double
        /// The day rows read (one per day, category, version and platform).
        public var dayRows: Int
        /// Medians, in milliseconds: the check, and its two largest parts (reading the rows; the
        /// rule over them), and tapwire alerts.
        public var hourlyCheckMs: Double
        public var readingMs: Double
        public var ruleMs: Double
        public var alertsMs: Double
        /// The mismatch family alone, on the same data: what `tapwire alerts` ran before the
        /// regression family, the baseline its time is quoted against.
        public var mismatchOnlyMs: Double

        public var json: JSONValue {
            .object([
                ("benchmark", "release_regression_check"), ("events", .int(events)), ("days", .int(days)),
                ("releaseCountsRows", .int(countsRows)), ("releaseActionRows", .int(actionRows)), ("series", .int(series)),
                ("findings", .int(findings)), ("looks", .int(looks)), ("loadSeconds", .double(loadSeconds)),
                ("dayRows", .int(dayRows)), ("hourlyCheckMs", .double(hourlyCheckMs)), ("readingMs", .double(readingMs)),
                ("ruleMs", .double(ruleMs)), ("alertsMs", .double(alertsMs)),
                ("mismatchOnlyMs", .double(mismatchOnlyMs)),
            ])
        }
    }

    public var options: Options
    public init(options: Options = Options()) { self.options = options }

    public func run(url: String, log: (String) -> Void) throws -> Result {
        let connection = try PostgresConnection(url: url, applicationName: "tapwire-bench")
        defer { connection.close() }
        try Migrator().migrate(connection)
        // Whole hours, so the check's last look is the last hour loaded.
        let now = Timestamp(microseconds: RollupDeltas.floor(Timestamp.now.microseconds, RollupDeltas.microsecondsPerHour))
        let start = now.adding(seconds: -Double(options.days) * 86_400)
        let appId: Int64
        var loadSeconds = 0.0
        if let reuse = options.reuseApp {
            appId = try AppStore().app(named: reuse, on: connection).appId
            log("app \(reuse): reusing the events and rollups of an earlier run (loaded before \(now))")
        } else {
            let name = try BenchLoad.app("bench-regression", on: connection)
            appId = name.appId
            let loadStart = monotonicNanoseconds()
            log("app \(name.name): loading \(options.events) events over \(options.days) days")
            try BenchLoad.generate(BenchSQL.regressionGenerate, appId: appId, events: options.events, start: start, days: options.days,
                                   on: connection)
            log("rebuilding the rollups from the events")
            try RollupStore().rebuild(appId: appId, from: start, to: now, on: connection)
            try connection.query(BenchSQL.regressionAnalyze)
            loadSeconds = Double(monotonicNanoseconds() - loadStart) / 1e9
        }
        let sizes = try connection.query(BenchSQL.regressionRollupRows, [String(appId)]).rows.first
        let countsRows = Int(sizes?[0] ?? "") ?? 0
        let actionRows = Int(sizes?[1] ?? "") ?? 0
        log("loaded in \(Int(loadSeconds)) s: \(countsRows) release counts rows, \(actionRows) action rows")

        let store = RegressionStore()
        var check: RegressionCheck?
        let hourly = try BenchLoad.median(options.repeats) { check = try store.check(appId: appId, asOf: now, on: connection) }
        // At most the broken button the data holds (with enough events, exactly it): nothing else.
        guard let check, case .comparison(let comparison) = check.evaluation, comparison.candidateVersion == "3.5",
              comparison.findings.allSatisfy({ "\($0.category) \($0.outcome)" == "cat_07 action act_1" }) else {
            throw DatabaseError(.unexpectedResult, "the benchmark's check flagged something other than cat_07's act_1 on 3.5")
        }
        // Where the time goes: reading the rows, and the rule over them.
        let from = RollupDeltas.floor(start.microseconds, RollupDeltas.microsecondsPerDay)
        var days: [RegressionDayRow] = []
        let reading = try BenchLoad.median(options.repeats) { days = try store.days(appId: appId, from: from, to: now.microseconds, on: connection) }
        let manifests = try ManifestStore().currentManifests(appId: appId, on: connection)
        var rule = RegressionConfiguration.default
        rule.candidateVersion = "3.5"
        let evaluating = BenchLoad.median(options.repeats) {
            _ = ReleaseRegressionRule(configuration: rule).evaluate(days: days, manifests: manifests, asOf: now.microseconds)
        }
        let service = FindingsService()
        let alerts = try BenchLoad.median(options.repeats) {
            _ = try service.report(appId: appId, appName: "bench", since: now.adding(seconds: -86_400), asOf: now, on: connection)
        }
        let mismatchOnly = try BenchLoad.median(options.repeats) {
            _ = try MismatchStore().report(appId: appId, appName: "bench", since: now.adding(seconds: -86_400), until: now, on: connection)
        }
        log("hourly check \(Int(hourly.rounded())) ms; tapwire alerts (both families) \(Int(alerts.rounded())) ms")
        return Result(events: options.events, days: options.days, countsRows: countsRows, actionRows: actionRows,
                      series: comparison.seriesInFamily, findings: comparison.findings.count, looks: options.days * 24,
                      loadSeconds: loadSeconds, dayRows: days.count, hourlyCheckMs: hourly, readingMs: reading, ruleMs: evaluating,
                      alertsMs: alerts, mismatchOnlyMs: mismatchOnly)
    }
}
