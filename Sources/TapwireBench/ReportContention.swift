import Foundation
import Synchronization
import TapwireBenchCore
import TapwireCommandLine
import TapwireCore
import TapwireLoopbackClient
import TapwireStore
import TapwireZlib

/// `tapwire-bench ingest --with-reports PAIRS`: issue 33's "a report running in the collector does
/// not raise ingestion's p99 by more than 50%". On each shape's collector, batches are posted at
/// half the UUIDv7 peak rate in segments of --report-segment-seconds, alternated: quiet (nothing
/// else) and with a reader that requests the app's 30-day engagement report from the same
/// collector in a loop (`GET /v1/reports/engagement?format=json`, then `GET /report`, the HTML
/// page, and again). Pairs alternate which segment comes first, so a drift of the shared machine
/// moves both. The target is judged on the median of the pairs' p99 ratios: the pooled p99 of a
/// few pairs hangs on a few batches of one segment, which one stall of the machine decides.
extension BenchCommand {
    /// What one shape's alternation measured.
    struct ReportContention {
        var shape: WorkloadShape.Name
        var offered = 0.0
        var quiet = Latencies()
        var reading = Latencies()
        /// How long each report request took.
        var reports = Latencies()
        /// Each pair's p99 with the reader over its p99 quiet: one stall of the shared machine
        /// moves one pair's ratio, where it can be the whole pooled p99.
        var pairRatios: [Double] = []
        /// The database's work in the quiet segments and in those with the reader (nil without
        /// pg_stat_statements): less noisy than a p99 on a shared machine.
        var quietWork: DatabaseWork?
        var readingWork: DatabaseWork?
        /// The database's processes' CPU seconds (nil when they are not on this machine) and the
        /// collector's, in the quiet segments and in those with the reader.
        var quietDatabaseCPU: Double?
        var readingDatabaseCPU: Double?
        var quietCollectorCPU: Double?
        var readingCollectorCPU: Double?
        var p99Ratio: Double {
            let q = quiet.percentile(0.99)
            return q > 0 ? reading.percentile(0.99) / q : 0
        }
        /// The target's figure: the median of the pairs' p99 ratios.
        var pairsMedian: Double { median(pairRatios) }
    }

    /// The statements one kind of segment ran in the shape's database (pg_stat_statements):
    /// all of them, the fold's (the background fold's and any reader's own), and the rest that
    /// is neither the fold nor ingestion's commits (the report's reads, key lookups).
    struct DatabaseWork {
        static let foldStatements: Set<String> = Set([
            EmbeddedSQL.pendingDeltaApps, EmbeddedSQL.foldApps, EmbeddedSQL.takeRollupDeltaBatches, EmbeddedSQL.copyRollupFoldRows,
            EmbeddedSQL.foldRollupDeltas, EmbeddedSQL.pendingAttributionApps, EmbeddedSQL.conversionUpliftDelivered,
            EmbeddedSQL.attributePending, EmbeddedSQL.attributePart, EmbeddedSQL.pendingHoldoutApps, EmbeddedSQL.holdoutsPending, EmbeddedSQL.summarizeEventRanges,
        ].map { ($0.name as NSString).lastPathComponent })
        var seconds = 0.0
        var foldSeconds = 0.0
        /// Calls of fold_rollup_deltas.sql: one per fold of up to 8 apps.
        var folds = 0
        var otherSeconds = 0.0

        /// What ran between two snapshots of `BenchCommand.statementWork`.
        init(from before: [String: (calls: Int, seconds: Double)], to after: [String: (calls: Int, seconds: Double)]) {
            for (name, work) in after {
                let seconds = work.seconds - (before[name]?.seconds ?? 0)
                self.seconds += seconds
                if Self.foldStatements.contains(name) { foldSeconds += seconds }
                if name == "other" { otherSeconds += seconds }
                if name == (EmbeddedSQL.foldRollupDeltas.name as NSString).lastPathComponent { folds += work.calls - (before[name]?.calls ?? 0) }
            }
        }

        init() {}

        static func + (a: DatabaseWork, b: DatabaseWork) -> DatabaseWork {
            var sum = a
            sum.seconds += b.seconds
            sum.foldSeconds += b.foldSeconds
            sum.folds += b.folds
            sum.otherSeconds += b.otherSeconds
            return sum
        }
    }

    /// Runs the alternation on `rig`'s collector, posting to `apps` (already created, read keys
    /// theirs). Returns the figures and the events posted to each app.
    static func measureReportContention(_ rig: Rig, apps: [CreatedApp], peakRate: Double, options: Options,
                                        statements: Bool, cpu: DatabaseCPU?) throws -> (ReportContention, [Int]) {
        let collector = rig.collector!
        var generator = WorkloadGenerator(shape: rig.shape, seed: options.workload.seed &+ 200, endingAt: Timestamp.now, ids: .v7)
        let auths = apps.map { "Basic " + Data(($0.writeKey.text + ":").utf8).base64EncodedString() }
        let readAuth = "Basic " + Data((apps[0].readKey.text + ":").utf8).base64EncodedString()
        let paths = ["/v1/reports/engagement?format=json", "/report?app=" + (apps[0].name.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed) ?? apps[0].name)]
        var figures = ReportContention(shape: rig.shape.name)
        figures.offered = peakRate / 2
        let batchesPerSecond = figures.offered / Double(options.batchSize)
        let perSegment = max(40, Int((batchesPerSecond * options.reportSegmentSeconds).rounded()))
        for pair in 0..<options.reportPairs {
            var pairP99 = (quiet: 0.0, reading: 0.0)
            for reading in pair % 2 == 0 ? [false, true] : [true, false] {
                let start = Timestamp.now
                let bodies = try (0..<perSegment).map { _ in
                    let batch = deviceBatch(&generator, events: options.batchSize, before: start)
                    return try Zlib.compress(wireJSON(batch.events, context: batch.context, sentAt: start))
                }
                let before = try statements ? statementWork(rig.setup) : nil
                let cpuBefore = (database: cpu?.seconds(), collector: processCPU(collector.process.pid))
                let stop = Atomic<Bool>(false)
                let reader = Mutex(LoadResult())
                let done = DispatchGroup()
                if reading {
                    done.enter()
                    Thread {
                        defer { done.leave() }
                        var local = LoadResult()
                        var connection: HTTPClientConnection?
                        var n = 0
                        while !stop.load(ordering: .relaxed) {
                            let path = paths[n % paths.count]
                            let failures = local.failures
                            local.exchange(httpRequestHead("GET", path, headers: ["Authorization": readAuth], contentLength: nil), port: collector.port,
                                           on: &connection, label: path + ": ")
                            if local.failures > failures { usleep(10_000) }
                            n += 1
                        }
                        reader.withLock { $0 = local }
                    }.start()
                }
                let result = try post(bodies, port: collector.port, auths: auths, connections: options.connections, ratePerSecond: batchesPerSecond)
                stop.store(true, ordering: .relaxed)
                done.wait()
                if let b = cpuBefore.database, let a = cpu?.seconds() {
                    if reading { figures.readingDatabaseCPU = (figures.readingDatabaseCPU ?? 0) + a - b } else { figures.quietDatabaseCPU = (figures.quietDatabaseCPU ?? 0) + a - b }
                }
                if let b = cpuBefore.collector, let a = processCPU(collector.process.pid) {
                    if reading { figures.readingCollectorCPU = (figures.readingCollectorCPU ?? 0) + a - b } else { figures.quietCollectorCPU = (figures.quietCollectorCPU ?? 0) + a - b }
                }
                if let before {
                    let work = try DatabaseWork(from: before, to: statementWork(rig.setup))
                    if reading { figures.readingWork = (figures.readingWork ?? DatabaseWork()) + work } else { figures.quietWork = (figures.quietWork ?? DatabaseWork()) + work }
                }
                guard result.failures == 0 else {
                    throw CLIError("\(result.failures) batches failed with reports (first: \(result.firstFailure ?? "?")); see \(collector.log)")
                }
                if reading {
                    let r = reader.withLock { $0 }
                    figures.reading.samples += result.latencies.samples
                    figures.reports.samples += r.latencies.samples
                    guard r.failures == 0 else {
                        throw CLIError("\(r.failures) report requests failed (first: \(r.firstFailure ?? "?")); see \(collector.log)")
                    }
                } else {
                    figures.quiet.samples += result.latencies.samples
                }
                if reading { pairP99.reading = result.latencies.percentile(0.99) } else { pairP99.quiet = result.latencies.percentile(0.99) }
                print(String(format: "%@ reports pair %d, %@: %d batches, p50 / p99 %.1f / %.1f ms", rig.shape.name.rawValue, pair + 1,
                             reading ? "with a reader" : "quiet", bodies.count,
                             result.latencies.percentile(0.5) * 1000, result.latencies.percentile(0.99) * 1000))
            }
            figures.pairRatios.append(pairP99.quiet > 0 ? pairP99.reading / pairP99.quiet : 0)
        }
        // Batch i of a post goes to app i mod apps; each segment starts again at app 0.
        let segments = options.reportPairs * 2
        let perApp = apps.indices.map { a in (perSegment - a + apps.count - 1) / apps.count * segments * options.batchSize }
        return (figures, perApp)
    }

    /// Issue 33's report target, per shape: p99 with the reader against p99 quiet, ≤ 1.5×.
    static func printReportContention(_ all: [ReportContention], options: Options) {
        guard !all.isEmpty else { return }
        let rest = ProcessInfo.processInfo.environment["TAPWIRE_READ_FOLD_REST_MS"].map { ", the collector's TAPWIRE_READ_FOLD_REST_MS=\($0)" } ?? ""
        print("\nissue 33 report target (ingestion at half the UUIDv7 peak, \(options.reportPairs) pairs of \(String(format: "%g", options.reportSegmentSeconds)) s segments, quiet against a reader requesting the 30-day report in a loop\(rest), this run):")
        for f in all {
            print(String(format: "  %@ (%.0f events/s offered): p99 with the reader over p99 quiet, the pairs' median %.2f× (target ≤ 1.5×): %@", f.shape.rawValue, f.offered,
                         f.pairsMedian, f.pairsMedian <= 1.5 ? "met" : "NOT MET"))
            print("    pair by pair: " + f.pairRatios.map { String(format: "%.2f×", $0) }.joined(separator: ", "))
            print(String(format: "    pooled: quiet p50 / p99 %.1f / %.1f ms (%d batches); with reports %.1f / %.1f ms (%d batches); p99 %.2f×",
                         f.quiet.percentile(0.5) * 1000, f.quiet.percentile(0.99) * 1000, f.quiet.samples.count,
                         f.reading.percentile(0.5) * 1000, f.reading.percentile(0.99) * 1000, f.reading.samples.count, f.p99Ratio))
            print(String(format: "    the reader: %d reports (JSON and HTML alternated, every one HTTP 200), p50 / p99 %.1f / %.1f ms", f.reports.samples.count,
                         f.reports.percentile(0.5) * 1000, f.reports.percentile(0.99) * 1000))
            if let q = f.quietWork, let r = f.readingWork {
                let n = Double(max(1, f.reports.samples.count))
                print(String(format: "    database time (pg_stat_statements): quiet %.2f s, of it folding %.2f s in %d folds, other reads %.2f s; with the reader %.2f s, folding %.2f s in %d folds, other reads %.2f s",
                             q.seconds, q.foldSeconds, q.folds, q.otherSeconds, r.seconds, r.foldSeconds, r.folds, r.otherSeconds))
                print(String(format: "    per report, over quiet: %.1f ms of database time, %.1f ms of it folding (%.2f folds), %.1f ms the report's reads",
                             (r.seconds - q.seconds) / n * 1000, (r.foldSeconds - q.foldSeconds) / n * 1000, Double(r.folds - q.folds) / n,
                             (r.otherSeconds - q.otherSeconds) / n * 1000))
            }
            let n = Double(max(1, f.reports.samples.count))
            if let q = f.quietDatabaseCPU, let r = f.readingDatabaseCPU {
                print(String(format: "    database CPU: quiet %.2f s, with the reader %.2f s: %.1f ms per report", q, r, (r - q) / n * 1000))
            }
            if let q = f.quietCollectorCPU, let r = f.readingCollectorCPU {
                print(String(format: "    collector CPU: quiet %.2f s, with the reader %.2f s: %.1f ms per report", q, r, (r - q) / n * 1000))
            }
        }
    }
}
