import Foundation
import Testing
import TapwireCore
import TapwireDemo
import TapwireReport
import TapwireStore
import TapwireTestSupport

/// Reads of one app go to one shard group (router queries), never to every shard: every
/// statement a report, a findings check and a key lookup run is EXPLAINed as it runs (PostgreSQL's
/// auto_explain, loaded in the reading session, writes each executed plan to the coordinator's
/// log with its parameters' values) and each plan's Citus scan must have one task. The fold a
/// reader does first is the one exception, and is named (docs/deployment.md, "Where PostgreSQL
/// and Citus differ"). Statements inside functions are not logged: Citus cannot EXPLAIN a
/// function's statement on a worker with its parameters ("could not determine data type of
/// parameter $2"), so auto_explain's nested statements would fail the function itself.
@Suite struct CitusRoutingTests {
    /// A plan from the coordinator's log: its statement and the task count of each Citus scan.
    struct LoggedPlan {
        var query: String
        var taskCounts: [Int]
    }

    /// The plans the session `pid` logged after `offset` in the coordinator's log. An entry runs
    /// from its prefix (`2026-12-04 10:00:00.000 UTC [pid] LOG:  duration: … plan:`) to the next
    /// line with a prefix; the statement's own lines are not indented, so the whole entry is kept.
    static func plans(in log: String, pid: Int32, from offset: Int) -> [LoggedPlan] {
        let text = String(decoding: Array(log.utf8).dropFirst(offset), as: UTF8.self)
        let prefix = try! NSRegularExpression(pattern: #"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+ \w+ \[(\d+)\] "#)
        let taskCount = try! NSRegularExpression(pattern: #"Task Count: (\d+)"#)
        var entries: [(pid: Int32?, lines: [Substring])] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let ns = String(line) as NSString
            if let match = prefix.firstMatch(in: String(line), range: NSRange(location: 0, length: ns.length)) {
                entries.append((Int32(ns.substring(with: match.range(at: 1))), [line]))
            } else if !entries.isEmpty {
                entries[entries.count - 1].lines.append(line)
            }
        }
        return entries.compactMap { entry in
            guard entry.pid == pid, let head = entry.lines.first, head.contains("LOG:  duration:"), head.contains("plan:") else { return nil }
            let body = entry.lines.joined(separator: "\n")
            let ns = body as NSString
            let counts = taskCount.matches(in: body, range: NSRange(location: 0, length: ns.length)).map {
                Int(ns.substring(with: $0.range(at: 1))) ?? -1
            }
            return LoggedPlan(query: body, taskCounts: counts)
        }
    }

    /// The fold every reader runs first (`RollupStore.foldBeforeReading`): it takes every app's
    /// pending deltas and queued attribution, so it reads every shard of the pending tables.
    static func isFold(_ query: String) -> Bool {
        query.contains("rollup_delta_batches") || query.contains("rollup_deltas") || query.contains("rollup_fold_rows") || query.contains("tapwire_fold_rollup_deltas")
            || query.contains("fold_apps") || query.contains("tapwire_summarize_recent_event_ranges")
            // The fold's queues of attribution and holdouts: which apps queued work, from every shard.
            || query.contains("attribution_pending") || query.contains("holdout_pending")
    }

    @Test func readsOfOneAppAreRouterQueries() throws {
        let cluster = try citus()
        let database = try cluster.migratedDatabase(prefix: "routing")
        let collector = try TestCollector(database: database) { $0.rateLimitPerSecond = 0 }
        defer { collector.stop() }
        let now = Timestamp.now
        var s = FleetScenario(now: now)
        // A smaller scenario than the user flow's: routing does not depend on how much there is.
        s.demoBatches = Array(s.demoBatches.prefix(6))
        let demo = try database.createApp("routing-demo"), release = try database.createApp("routing-release")
        for (app, manifests, batches) in [(demo, s.demoManifests, s.demoBatches), (release, s.releaseManifests, s.releaseBatches)] {
            for manifest in manifests { #expect(try collector.client().post("/v1/categories", key: app.writeKey.text, json: manifest).status == 200) }
            for body in batches { _ = try CitusUserFlowTests.post(collector, key: app.writeKey.text, body) }
        }

        let connection = try PostgresConnection(url: database.url, applicationName: "tapwire-routing")
        defer { connection.close() }
        try connection.query("LOAD 'auto_explain'")
        try connection.query("SET auto_explain.log_min_duration = 0")
        let logPath = cluster.coordinator.logFile
        let offset = (try? FileManager.default.attributesOfItem(atPath: logPath)[.size] as? Int) ?? 0

        let from = s.demoFrom.description, to = s.demoTo.description
        let requests: [[(String, String)]] = [
            [("from", from), ("to", to)],
            [("from", String(from.prefix(10))), ("to", String(s.demoTo.adding(seconds: -1).description.prefix(10))), ("tz", "Asia/Kolkata")],
            [("from", s.demoFrom.adding(seconds: 86_400 + 1_020).description), ("to", s.demoTo.adding(seconds: -3_893).description),
             ("by", "campaign")],
            [("from", from), ("to", to), ("by", "version"), ("platform", "iOS")],
        ]
        for options in requests {
            _ = try EngagementReportService().report(appId: demo.appId, appName: demo.name, request: try ReportRequest(options: options),
                                                     on: connection, now: now)
        }
        var raw = try ReportRequest(options: [("from", from), ("to", to)])
        raw.source = .rawEvents
        _ = try EngagementReportService().report(appId: demo.appId, appName: demo.name, request: raw, on: connection, now: now)
        for (at, look) in [(now, FindingsQuery.Look.current), (now, .computed), (s.release.adding(seconds: 86_400), .computed)] {
            _ = try FindingsService().report(appId: release.appId, appName: release.name, since: at.adding(seconds: -86_400), asOf: at,
                                             look: look, on: connection)
        }
        #expect(try AppStore().resolve(release.writeKey, on: connection)?.appId == release.appId)

        // auto_explain writes as each statement ends; the log is written by the server's process.
        var logged: [LoggedPlan] = []
        _ = eventually(timeout: 10) {
            let log = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
            logged = Self.plans(in: log, pid: connection.backendPID, from: offset)
            return logged.contains { $0.query.contains("api_keys") }
        }
        let reads = logged.filter { !Self.isFold($0.query) }
        let distributed = reads.filter { !$0.taskCounts.isEmpty }
        // Every statement family of the report, the regression check, the stored look and the key.
        for part in ["rollup_totals", "rollup_total_actions", "rollup_total_histograms", "rollup_trend", "rollup_uplift_days",
                     "rollup_quarter_coverage", "FROM events", "current_manifests",
                     "rollup_release_counts", "rollup_release_actions", "regression_looks", "mismatch_usage", "api_keys"] {
            #expect(distributed.contains { $0.query.contains(part) }, "no plan read \(part)")
        }
        for plan in distributed {
            #expect(plan.taskCounts.allSatisfy { $0 == 1 }, "fans out to \(plan.taskCounts) tasks: \(plan.query.prefix(1500))")
        }
        let fold = logged.filter { Self.isFold($0.query) }.flatMap(\.taskCounts).max() ?? 0
        print("routing: \(distributed.count) distributed reads of one app, each one task; the fold before reading runs up to \(fold) tasks")
        #expect(distributed.count >= 20)
    }
}
