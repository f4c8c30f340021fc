import Foundation
import TapwireCore
import TapwireReport
import TapwireStore

/// The release-regression benchmark of `make bench`: the hourly check (docs/regressions.md, "The
/// hourly check") for an app of 20 categories over 14 days of 10M events, from the release
/// rollups, and `tapwire alerts`' work (both families) on the same data, with the hour's look
/// stored by the collectors and without. Every category, version
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
        /// rule over them).
        public var hourlyCheckMs: Double
        public var readingMs: Double
        public var ruleMs: Double
        /// `tapwire alerts` (both families) when the collectors stored the hour's look, and when
        /// it computes the look (the first reader of an hour, `--fresh`, `--at`).
        public var alertsStoredMs: Double
        public var alertsComputedMs: Double
        /// The mismatch family alone, on the same data: what `tapwire alerts` ran before the
        /// regression family, the baseline its time is quoted against.
        public var mismatchOnlyMs: Double
        /// The stored look's size (its JSON).
        public var lookBytes: Int

        public var json: JSONValue {
            .object([
                ("benchmark", "release_regression_check"), ("events", .int(events)), ("days", .int(days)),
                ("releaseCountsRows", .int(countsRows)), ("releaseActionRows", .int(actionRows)), ("series", .int(series)),
                ("findings", .int(findings)), ("looks", .int(looks)), ("loadSeconds", .double(loadSeconds)),
                ("dayRows", .int(dayRows)), ("hourlyCheckMs", .double(hourlyCheckMs)), ("readingMs", .double(readingMs)),
                ("ruleMs", .double(ruleMs)), ("alertsStoredLookMs", .double(alertsStoredMs)),
                ("alertsComputedLookMs", .double(alertsComputedMs)), ("mismatchOnlyMs", .double(mismatchOnlyMs)),
                ("lookBytes", .int(lookBytes)),
            ])
        }
    }

    /// The most `tapwire alerts` with the hour's look stored may take, as a multiple of the
    /// mismatch family alone (RegressionBenchCommand says why).
    public static let storedLookBound = 1.5

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
            loadSeconds = secondsSince(loadStart)
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
        // tapwire alerts: the baseline (the mismatch family alone, what it ran before the
        // regression family), then both families with the hour's look stored, then computed.
        let since = now.adding(seconds: -86_400)
        let mismatchOnly = try BenchLoad.median(options.repeats) {
            _ = try MismatchStore().report(appId: appId, appName: "bench", since: since, until: now, on: connection)
        }
        // The hour's look, taken as the collectors' FindingMonitor takes it (or read, if an
        // earlier run over this app took it already).
        let taken = try RegressionLookStore().take(appId: appId, asOf: now, on: connection)
        let service = FindingsService()
        var shown: RegressionCheck?
        let alertsStored = try BenchLoad.median(options.repeats) {
            shown = try service.report(appId: appId, appName: "bench", since: since, asOf: now, look: .current, on: connection)
                .section(ReleaseRegressionSection.self)?.check
        }
        guard let shown, shown.look?.source == "stored", shown.evaluation == taken.evaluation else {
            throw DatabaseError(.unexpectedResult, "tapwire alerts did not show the stored look of the hour")
        }
        let alertsComputed = try BenchLoad.median(options.repeats) {
            _ = try service.report(appId: appId, appName: "bench", since: since, asOf: now, look: .computed, on: connection)
        }
        log("hourly check \(Int(hourly.rounded())) ms; tapwire alerts \(Int(alertsStored.rounded())) ms with the hour's look stored, "
            + "\(Int(alertsComputed.rounded())) ms computing it; the mismatch family alone \(Int(mismatchOnly.rounded())) ms")
        return Result(events: options.events, days: options.days, countsRows: countsRows, actionRows: actionRows,
                      series: comparison.seriesInFamily, findings: comparison.findings.count, looks: options.days * 24,
                      loadSeconds: loadSeconds, dayRows: days.count, hourlyCheckMs: hourly, readingMs: reading, ruleMs: evaluating,
                      alertsStoredMs: alertsStored, alertsComputedMs: alertsComputed, mismatchOnlyMs: mismatchOnly,
                      lookBytes: try RegressionLookStore.encode(taken).utf8.count)
    }
}
