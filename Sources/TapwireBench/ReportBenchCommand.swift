import Foundation
import TapwireCommandLine
import TapwireCore
import TapwireReport
import TapwireStore

/// `tapwire-bench report`: the report benchmark of `make bench`. Loads synthetic events
/// straight into the events table, rebuilds the rollups, then times the 30-day engagement report
/// from rollups against the same numbers computed from raw events, in the same run.
enum ReportBenchCommand {
    static let usage = """
    tapwire-bench report [--events N] [--runs N] [--time-zone ZONE[,ZONE…]] [--keep | --reuse APP] [--skip-raw] [--database-url URL]
      Loads N events (default 10,000,000) for a new app over 30 days, straight into the events
      table, rebuilds the rollups, then times the 30-day report from the rollups (median of
      --runs, default 7) and from raw events, in each zone of --time-zone (default
      UTC,Asia/Kolkata: whole UTC hours, and local midnights in the middle of an hour, which the
      quarter-hour grain answers). Exits 1 if a rollup report takes 100 ms or more.
      --keep leaves the app's events and rollups in place (its name is printed); --reuse APP times
      the reports of such an app without loading again. --skip-raw leaves out the raw-events
      baseline (about 25 s at 10M events) and with it the check that the numbers are identical.
    """

    static func run(_ args: inout Arguments) throws -> Int32 {
        let events = try args.int("events") ?? 10_000_000
        guard events > 0, events <= 200_000_000 else { throw CLIError("--events must be from 1 to 200,000,000") }
        let runs = max(1, try args.int("runs") ?? 7)
        let reuse = try args.option("reuse")
        let keep = args.flag("keep") || reuse != nil
        let skipRaw = args.flag("skip-raw")
        let timeZones = (try args.option("time-zone") ?? "UTC,Asia/Kolkata").split(separator: ",").map(String.init)
        guard !timeZones.isEmpty, timeZones.allSatisfy({ !$0.isEmpty }) else {
            throw CLIError("--time-zone takes zone names separated by commas, such as UTC,Asia/Kolkata")
        }
        let location = try DatabaseLocation.resolve(&args)
        try args.finish()
        let connection = try location.connect()
        defer { connection.close() }
        try Migrator().migrate(connection)
        let start = Timestamp(iso8601: "2026-10-01T00:00:00Z")!
        let end = start.adding(microseconds: 30 * 86_400_000_000)
        func seconds(_ since: UInt64) -> Double { Double(monotonicNanoseconds() - since) / 1e9 }
        func say(_ line: String) { FileHandle.standardOutput.write(Data(("bench-report: " + line + "\n").utf8)) }
        let app: (appId: Int64, name: String)
        if let reuse {
            let record = try AppStore().app(named: reuse, on: connection)
            app = (record.appId, record.name)
            say("app \(app.name): reusing the events and rollups of an earlier --keep run")
        } else {
            let created = try AppStore().createApp(named: "bench-report-" + String(UInt32.random(in: 0...UInt32.max), radix: 36), on: connection)
            app = (created.appId, created.name)
            try load(app: app, events: events, start: start, end: end, on: connection, say: say)
        }

        var failures: [String] = []
        for timeZone in timeZones {
            failures += try measure(app: app, timeZone: timeZone, from: start, to: end, runs: runs, skipRaw: skipRaw, on: connection, say: say)
        }
        if !keep { try connection.query(BenchSQL.deleteAppEvents, [String(app.appId)]) }
        guard failures.isEmpty else {
            for failure in failures { say("FAIL: " + failure) }
            return 1
        }
        say("PASS: under 100 ms in " + timeZones.joined(separator: " and "))
        return 0
    }

    /// Times the report of `app` with its days in `timeZone`: from rollups, and from raw events
    /// (unless `skipRaw`), checking the numbers are the same. Returns what failed.
    static func measure(app: (appId: Int64, name: String), timeZone: String, from start: Timestamp, to end: Timestamp, runs: Int,
                        skipRaw: Bool, on connection: PostgresConnection, say: (String) -> Void) throws -> [String] {
        func seconds(_ since: UInt64) -> Double { Double(monotonicNanoseconds() - since) / 1e9 }
        let service = EngagementReportService()
        func time(_ source: ReportSource, runs: Int) throws -> (median: Double, report: EngagementReport) {
            var samples: [Double] = []
            var last: EngagementReport?
            for _ in 0..<runs {
                let began = monotonicNanoseconds()
                last = try service.report(appName: app.name,
                                          scope: ReportScope(appId: app.appId, from: start, to: end, timeZone: timeZone, source: source),
                                          on: connection, now: start)
                samples.append(seconds(began))
            }
            return (samples.sorted()[samples.count / 2], last!)
        }
        _ = try time(.rollups, runs: 1) // warm the cache, as a dashboard that is open would
        let fast = try time(.rollups, runs: runs)
        say(String(format: "30-day report from rollups, days in %@: %.1f ms (median of %d)", timeZone, fast.median * 1000, runs))
        var failures: [String] = []
        if skipRaw {
            say("the raw-events baseline is skipped (--skip-raw): the numbers are not checked")
        } else {
            // The baseline gets PostgreSQL's defaults (JIT on), its best case for a long scan.
            try connection.query(BenchSQL.sessionJit, ["on"])
            let slow = try time(.rawEvents, runs: max(1, min(3, runs)))
            try connection.query(BenchSQL.sessionJit, ["off"])
            var comparable = fast.report
            comparable.source = .rawEvents
            let same = comparable == slow.report
            say(String(format: "same report from raw events: %.1f ms (median of %d)", slow.median * 1000, max(1, min(3, runs))))
            say(String(format: "ratio raw / rollups: %.0fx; numbers identical: %@", slow.median / fast.median, same ? "yes" : "NO"))
            if !same { failures.append("the rollup report in \(timeZone) differs from the raw one") }
        }
        if fast.median >= 0.1 { failures.append("the rollup report in \(timeZone) took 100 ms or more") }
        return failures
    }

    /// Loads `events` synthetic events of `app` straight into the events table and rebuilds its rollups.
    static func load(app: (appId: Int64, name: String), events: Int, start: Timestamp, end: Timestamp, on connection: PostgresConnection,
                     say: (String) -> Void) throws {
        func seconds(_ since: UInt64) -> Double { Double(monotonicNanoseconds() - since) / 1e9 }
        say("app \(app.name): loading \(events) events over 30 days")
        try connection.query(EmbeddedSQL.ensurePartitions, ["2026-10-01", "2026-10-31"])
        var t = monotonicNanoseconds()
        try connection.query(BenchSQL.reportEvents, [String(app.appId), start.iso8601(fractionDigits: 0), String(events), "0.42"])
        say(String(format: "loaded in %.1f s", seconds(t)))
        try connection.query(BenchSQL.analyzeEvents)
        t = monotonicNanoseconds()
        try RollupStore().rebuild(appId: app.appId, from: start, to: end, on: connection)
        try connection.query(BenchSQL.reportAnalyzeRollups)
        let rollupRows = try connection.query(BenchSQL.reportRollupRows, [String(app.appId)]).scalar ?? "?"
        say(String(format: "rollups rebuilt from events in %.1f s: \(rollupRows) rollup rows for \(events) events", seconds(t)))
    }
}
