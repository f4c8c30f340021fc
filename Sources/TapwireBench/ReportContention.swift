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
/// half the UUIDv7 peak rate in segments of --half-peak-seconds, alternated: quiet (nothing else)
/// and with a reader that requests the app's 30-day engagement report from the same collector in
/// a loop (`GET /v1/reports/engagement?format=json`, then `GET /report`, the HTML page, and again).
/// Pairs alternate which segment comes first, so a drift of the shared machine moves both.
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
        var p99Ratio: Double {
            let q = quiet.percentile(0.99)
            return q > 0 ? reading.percentile(0.99) / q : 0
        }
    }

    /// Runs the alternation on `rig`'s collector, posting to `apps` (already created, read keys
    /// theirs). Returns the figures and the events posted to each app.
    static func measureReportContention(_ rig: Rig, apps: [CreatedApp], peakRate: Double, options: Options) throws -> (ReportContention, [Int]) {
        let collector = rig.collector!
        var generator = WorkloadGenerator(shape: rig.shape, seed: options.workload.seed &+ 200, endingAt: Timestamp.now, ids: .v7)
        let auths = apps.map { "Basic " + Data(($0.writeKey.text + ":").utf8).base64EncodedString() }
        let readAuth = "Basic " + Data((apps[0].readKey.text + ":").utf8).base64EncodedString()
        let paths = ["/v1/reports/engagement?format=json", "/report?app=" + (apps[0].name.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed) ?? apps[0].name)]
        var figures = ReportContention(shape: rig.shape.name)
        figures.offered = peakRate / 2
        let batchesPerSecond = figures.offered / Double(options.batchSize)
        let perSegment = max(40, Int((batchesPerSecond * options.halfPeakSeconds).rounded()))
        for pair in 0..<options.reportPairs {
            var pairP99 = (quiet: 0.0, reading: 0.0)
            for reading in pair % 2 == 0 ? [false, true] : [true, false] {
                let start = Timestamp.now
                let bodies = try (0..<perSegment).map { _ in
                    let batch = deviceBatch(&generator, events: options.batchSize, before: start)
                    return try Zlib.compress(wireJSON(batch.events, context: batch.context, sentAt: start))
                }
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
        print("\nissue 33 report target (ingestion at half the UUIDv7 peak, \(options.reportPairs) pairs of \(String(format: "%g", options.halfPeakSeconds)) s segments, quiet against a reader requesting the 30-day report in a loop, this run):")
        for f in all {
            print(String(format: "  %@ (%.0f events/s offered): quiet p50 / p99 %.1f / %.1f ms (%d batches); with reports %.1f / %.1f ms (%d batches); "
                         + "p99 %.2f× (target ≤ 1.5×): %@", f.shape.rawValue, f.offered,
                         f.quiet.percentile(0.5) * 1000, f.quiet.percentile(0.99) * 1000, f.quiet.samples.count,
                         f.reading.percentile(0.5) * 1000, f.reading.percentile(0.99) * 1000, f.reading.samples.count,
                         f.p99Ratio, f.p99Ratio <= 1.5 ? "met" : "NOT MET"))
            print("    p99 with the reader over p99 quiet, pair by pair: " + f.pairRatios.map { String(format: "%.2f×", $0) }.joined(separator: ", ")
                  + String(format: " (median %.2f×)", median(f.pairRatios)))
            print(String(format: "    the reader: %d reports (JSON and HTML alternated, every one HTTP 200), p50 / p99 %.1f / %.1f ms", f.reports.samples.count,
                         f.reports.percentile(0.5) * 1000, f.reports.percentile(0.99) * 1000))
        }
    }
}
