import Foundation
import TapwireCore
import TapwireStore

/// The mismatch benchmark of `make bench`: detection over 30 days of 10M events from the
/// rollups, against the same detection input computed from the raw events (the baseline). What
/// the usage rollups cost ingestion is in `tapwire-bench ingest`'s per-statement figures (the
/// deltas' COPY and the fold).
public struct MismatchBenchmark: Sendable {
    public struct Options: Sendable {
        public var events = 10_000_000
        public var days = 30
        public var repeats = 7
        public var baselineRepeats = 3
        public init() {}
    }

    public struct Result: Sendable {
        public var events: Int
        public var days: Int
        public var hourlyRows: Int
        public var dailyRows: Int
        public var findings: Int
        public var loadSeconds: Double
        /// Medians, in milliseconds.
        public var detection30dMs: Double
        public var detection24hMs: Double
        public var rawScan30dMs: Double

        public var json: JSONValue {
            .object([
                ("benchmark", "mismatch_detection"), ("events", .int(events)), ("days", .int(days)),
                ("hourlyRollupRows", .int(hourlyRows)), ("dailyRollupRows", .int(dailyRows)), ("findings", .int(findings)),
                ("loadSeconds", .double(loadSeconds)),
                ("detection30dMs", .double(detection30dMs)), ("detection24hMs", .double(detection24hMs)),
                ("rawScanBaseline30dMs", .double(rawScan30dMs)), ("speedupVsRawScan", .double(rawScan30dMs / detection30dMs)),
            ])
        }
    }

    public var options: Options
    public init(options: Options = Options()) { self.options = options }

    static let versions = ["3.0", "3.1", "3.2", "3.3", "3.4", "3.5"]

    /// Registered by 3.1-3.5 (3.0 never posted a manifest): 20 categories of 3 actions each.
    static func manifest(_ version: String) -> Manifest {
        Manifest(appVersion: version, categories: (0..<20).map { c in
            ManifestCategory(identifier: String(format2("cat_", c)), options: c % 2 == 0 ? ["customDismissAction"] : [],
                             actions: (0..<3).map { ManifestAction(identifier: "act_\($0)", textInput: $0 == 0 && c % 5 == 0) })
        })
    }

    static func format2(_ prefix: String, _ n: Int) -> String { prefix + (n < 10 ? "0" : "") + String(n) }

    public func run(url: String, log: (String) -> Void) throws -> Result {
        let connection = try PostgresConnection(url: url, applicationName: "tapwire-bench")
        defer { connection.close() }
        try Migrator().migrate(connection)
        let appId = try BenchLoad.app("bench-mismatch", on: connection).appId

        let now = Timestamp.now
        let start = now.adding(seconds: -Double(options.days) * 86_400)
        let loadStart = monotonicNanoseconds()
        log("loading \(options.events) events over \(options.days) days")
        // Deterministic shapes from the row number: 20 registered categories, a case mismatch, a
        // near miss, 30 unknown ones; 6 versions (one without manifest); 3 platforms; delivered,
        // response (3 actions, open, dismiss, an unregistered one) and backend `sent` events.
        try BenchLoad.generate(BenchSQL.mismatchGenerate, appId: appId, events: options.events, start: start, days: options.days,
                               on: connection)
        try connection.executeScript(BenchSQL.mismatchRebuildRollups)
        try connection.query(BenchSQL.mismatchAnalyze)
        let loadSeconds = secondsSince(loadStart)
        let sizes = try connection.query(BenchSQL.mismatchRollupRows, [String(appId)]).rows.first
        let hourly = Int(sizes?[0] ?? "") ?? 0
        let daily = Int(sizes?[1] ?? "") ?? 0
        log("loaded in \(Int(loadSeconds)) s: \(hourly) hourly and \(daily) daily rollup rows")

        let store = MismatchStore()
        let since30 = start
        var findings = 0
        let detection30 = try BenchLoad.median(options.repeats) {
            findings = try store.report(appId: appId, appName: "bench", since: since30, until: now, on: connection).findings.count
        }
        let detection24 = try BenchLoad.median(options.repeats) {
            _ = try store.report(appId: appId, appName: "bench", since: now.adding(seconds: -86_400), until: now, on: connection)
        }
        // Baseline: the same detection input straight from the raw events, then the same rules,
        // with PostgreSQL's default JIT (its best case for a long scan).
        try connection.query(BenchSQL.sessionJit, ["on"])
        defer { _ = try? connection.query(BenchSQL.sessionJit, ["off"]) }
        var rawTotal: Int64 = 0
        var rawFindings = 0
        let raw = try BenchLoad.median(options.baselineRepeats) {
            let rows = try connection.query(BenchSQL.mismatchRawUsage, [String(appId), MismatchWindow(since: since30, until: now).hourStart.description,
                                                            now.description]).rows
            let usage = try MismatchStore.parseUsage(rows)
            rawTotal = usage.reduce(0) { $0 + $1.count }
            let manifests = try ManifestStore().currentManifests(appId: appId, on: connection)
            rawFindings = MismatchDetector().findings(usage: usage, manifests: manifests).count
        }
        let rollupTotal = try store.usage(appId: appId, since: since30, until: now, on: connection).reduce(0) { $0 + $1.count }
        guard rawTotal == rollupTotal, rawFindings == findings else {
            throw DatabaseError(.unexpectedResult, "rollups (\(rollupTotal) events, \(findings) findings) disagree with the raw events (\(rawTotal), \(rawFindings))")
        }
        log("detection 30d \(fmt(detection30)) ms, 24h \(fmt(detection24)) ms; raw scan 30d \(fmt(raw)) ms")

        return Result(events: options.events, days: options.days, hourlyRows: hourly, dailyRows: daily, findings: findings,
                      loadSeconds: loadSeconds, detection30dMs: detection30, detection24hMs: detection24, rawScan30dMs: raw)
    }


    private func fmt(_ ms: Double) -> String { String(Int(ms.rounded())) }



}
