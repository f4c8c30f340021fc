import Foundation
import Synchronization
import TapwireBenchCore
import TapwireCommandLine
import TapwireCore
import TapwireLoopbackClient
import TapwireServer
import TapwireStatistics
import TapwireStore
import TapwireZlib

/// `tapwire-bench ingest`: the collector end to end (HTTP + gzip + JSON + validation + group
/// commit + dedup + rollups) against a plain COPY of the same rows into a table with a uuid
/// primary key, side by side in one run, for random (v4) and for UUIDv7 event ids. The
/// collector is a separate `tapwire serve` process; this program is the load generator.
enum BenchCommand {
    static let usage = """
    tapwire-bench ingest --database-url URL [--shape benchmark|real|outcomes|holdouts|anonymous|benchmark,real,…] [--seed 42]
                         [--connections 16] [--batch-size 500] [--batches 400] [--rounds 3]
                         [--apps 1] [--half-peak-seconds 10] [--json FILE] [--tapwire PATH]
                         [--curve W:LINGER_MS:FILL,…] [--citus-workers URL,URL…] [--with-reports PAIRS]
                         [--report-segment-seconds 20] [--rollup-fold-connections 3]
      For each shape, creates a scratch database next to the one URL names and starts its own
      `tapwire serve` on it. For random (v4) and then UUIDv7 ids it alternates rounds of: a plain
      COPY of pre-built rows into a table with a uuid primary key (the baseline, emptied before
      each round), and the same number of events posted as pre-built gzip batches over keep-alive
      connections (peak), shape after shape within each round; each timed segment starts after
      the cluster's background work (autovacuum, folds) and a CHECKPOINT. Then it posts at half
      the peak rate for --half-peak-seconds.
      Prints one table, a column per shape and id kind: COPY rows/s, end-to-end events/s and the
      ratio (medians of the rounds), the same with each round's fold in the clock (until what
      was acknowledged is also in the rollups), p50/p99 at peak and at half peak, database CPU per 1M events
      (the PostgreSQL processes' CPU time from /proc, when the server is on this machine),
      database time per statement per 1M events (when the server preloads pg_stat_statements),
      and each collector's peak RSS; with both shapes, issue 33's ingestion targets.
      --shape    the workload (docs/benchmarks.md): benchmark (8 categories, 4 campaigns, 3
                 versions, 2 platforms; the default), real (30 categories, 80 campaigns a day,
                 40 versions, 5 platforms), outcomes (real with conversions), holdouts
                 (outcomes with the sender's assignments, every campaign holding out 10 %),
                 anonymous (real without install ids: an experiment that splits their cost
                 from the cardinality's), or several
      --seed     the generator's seed (default 42): the same seed posts the same events
      --apps     spread the batches over this many apps, round robin, each with its own write
                 key (default 1)
      --half-peak-seconds
                 how long the half-peak phase posts (default 10): its p99 is over this many
                 seconds of requests, so one stall of a fraction of a second is not the whole tail
      --tapwire  the `tapwire` binary to run as the collector (default: TAPWIRE_BINARY, else the
                 one next to this program)
      --rollup-fold-connections
                 the collectors' background fold's connections (1 to 3; default
                 TAPWIRE_ROLLUP_FOLD_CONNECTIONS, else the collector's default, 3); the fold that
                 ends each round (what the collector has not folded yet) runs its shares on as
                 many connections, as the collector's does
      --curve    then, for each point (writers : commit linger ms : commit fill events), a fresh
                 collector takes one round of UUIDv7 batches at peak: prints events/s, p50/p99 and
                 database CPU per 1M events, the curve the group-commit defaults are chosen from
      --citus-workers
                 the URL names a Citus coordinator and these (superuser URLs, comma-separated)
                 its workers: the scratch database is made on each node with the extension, the
                 workers added, so the tables are distributed; database CPU is the whole
                 cluster's (docs/deployment.md, "Past one machine")
      --with-reports
                 then, on each shape's collector, PAIRS (1 to 20) pairs of --report-segment-seconds
                 segments at half the UUIDv7 peak rate: one quiet, one with a reader requesting
                 the app's 30-day report from the same collector in a loop (JSON, then the HTML
                 /report); prints p50/p99 of both, each pair's p99 ratio and their median (issue
                 33's report target, p99 ≤ 1.5×, judged on that median), and what a report adds
                 over quiet: folds, database time, database and collector CPU
      --report-segment-seconds
                 how long each segment of --with-reports posts (default 20, 5 to 600): a
                 segment's p99 is over about 1 % of its batches, so at 20 s it is not one stall
    """

    struct Latencies {
        var samples: [Double] = []
        func percentile(_ p: Double) -> Double {
            guard !samples.isEmpty else { return 0 }
            let sorted = samples.sorted()
            return sorted[min(sorted.count - 1, Int((p * Double(sorted.count)).rounded(.up)) - 1)]
        }
    }

    /// What one id kind measured on one shape.
    struct Figures {
        var shape: WorkloadShape.Name
        var kind: EventIDKind
        /// The collector's peak RSS (of this shape's collector, over the whole run).
        var rss = 0
        var copyRate = 0.0
        var peakRate = 0.0
        /// Events a second until the round's events were acknowledged and folded into the
        /// rollups: the peak's clock plus the fold of what the collector had not folded yet.
        /// The acknowledged rate alone leaves that fold out, and its share grows with the fold's
        /// work per event (docs/benchmarks.md, "The round's fold in the clock").
        var foldedRate = 0.0
        var peak = Latencies()
        var half = Latencies()
        var halfOffered = 0.0
        /// Database CPU seconds per 1M rows (nil when the server's processes cannot be read).
        var copyCPU: Double?
        var collectorCPU: Double?
        /// The collector process's own CPU seconds (user and system) per 1M events at peak, its
        /// fold of the round included: on a machine of few cores it competes with the database.
        var processCPU: Double?
        /// Database execution seconds per 1M events, by statement (nil without pg_stat_statements).
        var copyStatements: [(String, Double)]?
        var collectorStatements: [(String, Double)]?
        /// WAL bytes per 1M events (the cluster's insert position, full-page images included).
        var copyWAL: Double?
        var collectorWAL: Double?
        /// The collector's WAL bytes per 1M events, by statement (pg_stat_statements' wal_bytes).
        var collectorStatementWAL: [String: Double]?
        /// The collector's shared buffers hit and read per 1M events, by statement (pg_stat_statements).
        var collectorStatementBuffers: [String: (hit: Double, read: Double)]?
        var ratio: Double { copyRate > 0 ? peakRate / copyRate : 0 }
        var foldedRatio: Double { copyRate > 0 ? foldedRate / copyRate : 0 }
        var label: String { shape.rawValue + " " + kind.rawValue }
    }

    /// What `tapwire-bench ingest` was asked for.
    struct Options {
        /// --shape and --seed.
        var workload: WorkloadOptions
        var connections: Int
        var batchSize: Int
        var batchCount: Int
        var rounds: Int
        /// Apps the batches are spread over, round robin, each with its own write key: how a
        /// shared collector is written to (each app has its own rollup keys and its own range of
        /// the dedup key, so the app count changes what the fold and the claim do:
        /// docs/ingestion.md).
        var apps: Int
        /// How long the paced phase at half the peak rate lasts. At 10 s it takes about 2,000
        /// requests, so its p99 is the 20th slowest, not the 2nd of one second's 200.
        var halfPeakSeconds: Double
        var jsonOut: String?
        var curve: [CurvePoint]
        var tapwire: String
        var location: DatabaseLocation
        /// With Citus: the workers' superuser URLs (the location is the coordinator).
        var citusWorkers: [String]
        /// --with-reports: pairs of quiet and report-reading segments (0: none).
        var reportPairs: Int
        /// --report-segment-seconds: how long each of those segments posts.
        var reportSegmentSeconds: Double
        /// --rollup-fold-connections (else TAPWIRE_ROLLUP_FOLD_CONNECTIONS, else the collector's
        /// default): the collector's background fold's connections, and the round's own fold's,
        /// which folds what the collector has not folded yet the way the collector does.
        var foldConnections: Int

        init(_ args: inout Arguments) throws {
            workload = try WorkloadOptions(&args)
            connections = try args.int("connections") ?? 16
            batchSize = try args.int("batch-size") ?? 500
            batchCount = try args.int("batches") ?? 400
            rounds = max(1, try args.int("rounds") ?? 3)
            apps = try args.int("apps") ?? 1
            guard (1...1000).contains(apps) else { throw CLIError("--apps must be from 1 to 1000, got \(apps)") }
            halfPeakSeconds = try args.double("half-peak-seconds") ?? 10
            guard (1...600).contains(halfPeakSeconds) else {
                throw CLIError("--half-peak-seconds must be from 1 to 600, got \(String(format: "%g", halfPeakSeconds))")
            }
            jsonOut = try args.option("json")
            curve = try (try args.option("curve")).map(CurvePoint.parse) ?? []
            tapwire = try tapwirePath(try args.option("tapwire"))
            citusWorkers = (try args.option("citus-workers") ?? "").split(separator: ",").map(String.init)
            reportPairs = try args.int("with-reports") ?? 0
            guard (0...20).contains(reportPairs) else { throw CLIError("--with-reports must be from 0 to 20 pairs, got \(reportPairs)") }
            reportSegmentSeconds = try args.double("report-segment-seconds") ?? 20
            guard (5...600).contains(reportSegmentSeconds) else {
                throw CLIError("--report-segment-seconds must be from 5 to 600, got \(String(format: "%g", reportSegmentSeconds))")
            }
            let foldConnectionsText = try args.option("rollup-fold-connections")
                ?? ProcessInfo.processInfo.environment["TAPWIRE_ROLLUP_FOLD_CONNECTIONS"].flatMap { $0.isEmpty ? nil : $0 }
            foldConnections = CollectorConfiguration(databaseURL: "").rollupFoldConnections
            if let text = foldConnectionsText {
                guard let n = Int(text), (1...FoldShares.maxConnections).contains(n) else {
                    throw CLIError("--rollup-fold-connections (or TAPWIRE_ROLLUP_FOLD_CONNECTIONS) must be 1 to \(FoldShares.maxConnections), got \(text)")
                }
                foldConnections = n
            }
            location = try DatabaseLocation.resolve(&args)
            try args.finish()
        }

        var eventsPerRound: Int { batchCount * batchSize }
    }

    /// A `tapwire serve` child process, so its memory and its log are its own.
    struct CollectorProcess {
        var process: Subprocess.Child
        var port: Int
        var log: String

        static func start(_ tapwire: String, url: String, environment: [String: String], logName: String) throws -> CollectorProcess {
            let port = EmbeddedPostgres.freePort()
            let log = NSTemporaryDirectory() + "\(logName)-\(port).log"
            let process = try Subprocess.spawn(tapwire, ["serve", "--database-url", url, "--port", String(port), "--log-level", "warning"],
                                               logPath: log, environment: ["TAPWIRE_RATE_LIMIT": "0"].merging(environment) { $1 })
            let collector = CollectorProcess(process: process, port: port, log: log)
            guard waitForHealth(port: port) else {
                collector.stop()
                throw CLIError("the collector did not start; see \(log)")
            }
            return collector
        }

        func stop() {
            process.signal(SIGINT)
            if process.wait(timeout: 20) == nil { process.signal(SIGKILL); _ = process.wait(timeout: 5) }
        }
    }

    /// What the database side can tell: its CPU time and, with pg_stat_statements, per-statement times.
    struct DatabaseProbes {
        var cpu: DatabaseCPU?
        var statements: Bool
    }

    /// One shape's side of the run: its scratch database, its own collector (so its memory is
    /// its own), and the generator its batches come from.
    struct Rig {
        var shape: WorkloadShape
        var scratch: ScratchDatabase
        var setup: PostgresConnection
        var collector: CollectorProcess?
        /// The round's fold, in the collector's shares (started with the collector).
        var shares: FoldShares?

        func stop() {
            collector?.stop()
            shares?.stop()
            setup.close()
            scratch.drop()
        }
    }

    static func run(_ args: inout Arguments) throws -> Int32 {
        let options = try Options(&args)
        var rigs: [Rig] = []
        defer { rigs.forEach { $0.stop() } }
        for name in options.workload.shapes {
            let scratch = try ScratchDatabase.create(beside: options.location, suffix: name.rawValue, citusWorkers: options.citusWorkers)
            let setup: PostgresConnection
            do { setup = try PostgresConnection(url: scratch.url) } catch { scratch.drop(); throw error }
            rigs.append(Rig(shape: .named(name), scratch: scratch, setup: setup))
            try Migrator().migrate(setup)
            try setup.query(BenchSQL.baselineTable)
        }
        // CREATE EXTENSION succeeds without the preload; only a reset proves the counters run.
        let statements = rigs.allSatisfy { (try? $0.setup.query(BenchSQL.statementsEnable)) != nil }
            && (try? rigs[0].setup.query(BenchSQL.statementsReset)) != nil
        // The first shape's workers (the shapes' databases share the cluster's processes).
        let workers = try rigs[0].scratch.workerConnections()
        defer { workers.forEach { $0.close() } }
        let probes = DatabaseProbes(cpu: DatabaseCPU(backendPIDs: [rigs[0].setup.backendPID] + workers.map(\.backendPID)), statements: statements)
        print("bench: \(options.batchCount) batches × \(options.batchSize) events a round, \(options.rounds) rounds per id kind, \(options.connections) keep-alive connections, shape \(options.workload.shapes.map(\.rawValue).joined(separator: " and ")) (seed \(options.workload.seed))")
        if !probes.statements { print("bench: no pg_stat_statements (start PostgreSQL with shared_preload_libraries=pg_stat_statements, as make bench does): no per-statement times") }
        if probes.cpu == nil { print("bench: the database's processes are not on this machine: no database CPU figures") }
        prepareWALSegments(rigs[0].setup)

        for r in rigs.indices {
            rigs[r].collector = try CollectorProcess.start(options.tapwire, url: rigs[r].scratch.url,
                                                           environment: ["TAPWIRE_ROLLUP_FOLD_CONNECTIONS": String(options.foldConnections)],
                                                           logName: "tapwire-bench-serve-" + rigs[r].shape.name.rawValue)
            let shares = FoldShares(databaseURL: rigs[r].scratch.url, connections: options.foldConnections, applicationName: "tapwire-bench-fold")
            shares.start()
            rigs[r].shares = shares
        }
        var all: [Figures] = []
        // Per shape: app id → events posted to it.
        var expected: [[Int64: Int]] = rigs.map { _ in [:] }
        // Per shape: the UUIDv7 apps, which --with-reports posts to and reads.
        var v7Apps: [[CreatedApp]] = rigs.map { _ in [] }
        for (k, kind) in EventIDKind.allCases.enumerated() {
            let apps = try rigs.map { rig in
                try (1...options.apps).map { n in
                    let app = try AppStore().createApp(named: "bench-" + (kind == .v7 ? "v7" : "v4") + (options.apps > 1 ? "-\(n)" : ""), on: rig.setup)
                    // A real app's SDK has posted each version's manifest.
                    for manifest in rig.shape.manifests { _ = try ManifestStore().store(manifest, appId: app.appId, on: rig.setup) }
                    return app
                }
            }
            let generators = rigs.map { rig in
                WorkloadGenerator(shape: rig.shape, seed: options.workload.seed &+ UInt64(k), endingAt: Timestamp.now, ids: kind)
            }
            if kind == .v7 { v7Apps = apps }
            let measured = try measure(kind, rigs: rigs, apps: apps, generators: generators, options: options, probes: probes)
            for (r, (figures, posted)) in measured.enumerated() {
                for (app, count) in zip(apps[r], posted) { expected[r][app.appId] = count }
                all.append(figures)
            }
        }
        for i in all.indices {
            all[i].rss = rigs.first { $0.shape.name == all[i].shape }?.collector?.process.peakResidentBytes ?? 0
        }

        // After the peak RSS is read: the reader's report memory is not ingestion's.
        var contention: [ReportContention] = []
        if options.reportPairs > 0 {
            for (r, rig) in rigs.enumerated() {
                let peak = all.first { $0.shape == rig.shape.name && $0.kind == .v7 }?.peakRate ?? 0
                let (figures, posted) = try measureReportContention(rig, apps: v7Apps[r], peakRate: peak, options: options,
                                                                    statements: probes.statements, cpu: probes.cpu)
                for (app, count) in zip(v7Apps[r], posted) { expected[r][app.appId, default: 0] += count }
                contention.append(figures)
            }
        }
        var stored: [[Int64: Int]] = rigs.map { _ in [:] }
        for (r, rig) in rigs.enumerated() {
            for appId in expected[r].keys {
                stored[r][appId] = Int(try rig.setup.query(BenchSQL.storedEvents, [String(appId)]).scalar ?? "0") ?? 0
            }
        }
        let complete = stored == expected
        printTable(all)
        printTargets(all)
        printReportContention(contention, options: options)
        if !options.curve.isEmpty {
            try runCurve(options.curve, rig: rigs[0], options: options, cpu: probes.cpu)
        }
        let storedTotal = stored.flatMap(\.values).reduce(0, +), expectedTotal = expected.flatMap(\.values).reduce(0, +)
        print("stored: \(storedTotal) of \(expectedTotal) posted (every 200 checked against the table)\(complete ? "" : ": MISSING EVENTS")")
        if let jsonOut = options.jsonOut {
            try OutputFile.write(summary(all, options: options).serialized(pretty: true), to: jsonOut)
        }
        return complete ? 0 : 1
    }

    /// One device's batch of the last five minutes before `start`, as devices send them.
    static func deviceBatch(_ generator: inout WorkloadGenerator, events: Int, before start: Timestamp) -> GeneratedBatch {
        generator.batch(events: events, from: start.adding(seconds: -300), to: start)
    }

    /// Pre-built batches of unique events: batch b is app b mod `apps`'s. The baseline COPYs the
    /// same rows (`staged`, under other app ids).
    static func makeRound(_ generator: inout WorkloadGenerator, baselineAppIds: [Int64], start: Timestamp,
                          options: Options) throws -> (staged: [StagedBatch], bodies: [[UInt8]]) {
        var staged: [StagedBatch] = []
        var bodies: [[UInt8]] = []
        for b in 0..<options.batchCount {
            let batch = deviceBatch(&generator, events: options.batchSize, before: start)
            staged.append(StagedBatch(appId: baselineAppIds[b % baselineAppIds.count], receivedAt: start, context: batch.context, events: batch.events))
            bodies.append(try Zlib.compress(wireJSON(batch.events, context: batch.context, sentAt: start)))
        }
        return (staged, bodies)
    }

    /// One id kind on every shape: alternating baseline and collector rounds, shape after shape
    /// within a round, then half the peak rate. Returns each shape's figures and how many events
    /// it posted to each of its apps.
    static func measure(_ kind: EventIDKind, rigs: [Rig], apps: [[CreatedApp]], generators: [WorkloadGenerator], options: Options,
                        probes: DatabaseProbes) throws -> [(Figures, [Int])] {
        var generators = generators
        let auths = apps.map { $0.map { "Basic " + Data(($0.writeKey.text + ":").utf8).base64EncodedString() } }
        let start = Timestamp.now
        var rounds: [[(staged: [StagedBatch], bodies: [[UInt8]])]] = []
        for r in rigs.indices {
            rounds.append(try (0..<options.rounds).map { _ in
                try makeRound(&generators[r], baselineAppIds: apps[r].map { $0.appId + 1_000_000 }, start: start, options: options)
            })
            // Warm-up events carry version 0, which the stored-events check leaves out.
            let warm = try (0..<20).map { _ in
                var batch = deviceBatch(&generators[r], events: options.batchSize, before: start)
                batch.context.appVersion = "0"
                return try Zlib.compress(wireJSON(batch.events, context: batch.context, sentAt: start))
            }
            _ = try post(warm, port: rigs[r].collector!.port, auths: auths[r], connections: options.connections, ratePerSecond: nil)
        }

        // Alternate baseline and collector rounds, and shapes within a round, so all see the same
        // machine: a shared machine's noise moves them all, and the medians' ratio is what is quoted.
        var figures = rigs.map { Figures(shape: $0.shape.name, kind: kind) }
        var copyRates = rigs.map { _ in [Double]() }, peakRates = rigs.map { _ in [Double]() }, foldedRates = rigs.map { _ in [Double]() }
        var copyCPUSeconds = rigs.map { _ in 0.0 }, collectorCPUSeconds = rigs.map { _ in 0.0 }
        var processCPUSeconds = rigs.map { _ in 0.0 }
        var copyTimes = rigs.map { _ in [String: Double]() }, collectorTimes = rigs.map { _ in [String: Double]() }
        var copyWAL = rigs.map { _ in 0.0 }, collectorWAL = rigs.map { _ in 0.0 }
        var collectorStatementWAL = rigs.map { _ in [String: Double]() }
        var collectorStatementBuffers = rigs.map { _ in [String: (hit: Double, read: Double)]() }
        var settling = true
        for round in 0..<options.rounds {
            for (r, rig) in rigs.enumerated() {
                let collector = rig.collector!
                if round == 0 { try warmBaseline(rounds[r][round].staged, options: options, on: rig.setup) }
                try rig.setup.query(BenchSQL.baselineTruncate)
                settle(rig.setup, settling: &settling)
                if probes.statements { try rig.setup.query(BenchSQL.statementsReset) }
                var cpuBefore = probes.cpu?.seconds()
                var walBefore = try walPosition(rig.setup)
                copyRates[r].append(try copyBaseline(rounds[r][round].staged, options: options, on: rig.setup))
                if let before = cpuBefore, let after = probes.cpu?.seconds() { copyCPUSeconds[r] += after - before }
                copyWAL[r] += try walPosition(rig.setup) - walBefore
                if probes.statements { add(try statementTimes(rig.setup), into: &copyTimes[r]); try rig.setup.query(BenchSQL.statementsReset) }

                settle(rig.setup, settling: &settling)
                if probes.statements { try rig.setup.query(BenchSQL.statementsReset) }
                cpuBefore = probes.cpu?.seconds()
                walBefore = try walPosition(rig.setup)
                let processBefore = processCPU(collector.process.pid)
                let postStart = monotonicNanoseconds()
                let result = try post(rounds[r][round].bodies, port: collector.port, auths: auths[r], connections: options.connections, ratePerSecond: nil)
                peakRates[r].append(Double(options.eventsPerRound) / secondsSince(postStart))
                guard result.failures == 0 else {
                    throw CLIError("\(result.failures) batches failed at peak (first: \(result.firstFailure ?? "?")); see \(collector.log)")
                }
                // What the collector's background fold does within a second, counted in the round's
                // CPU and WAL, and in the folded rate's clock (it waits for a background fold
                // running), folded in the collector's shares (docs/benchmarks.md, "The round's
                // fold in the collector's shares").
                _ = try rig.shares!.fold(on: rig.setup)
                foldedRates[r].append(Double(options.eventsPerRound) / secondsSince(postStart))
                if let before = cpuBefore, let after = probes.cpu?.seconds() { collectorCPUSeconds[r] += after - before }
                if let before = processBefore, let after = processCPU(collector.process.pid) { processCPUSeconds[r] += after - before }
                collectorWAL[r] += try walPosition(rig.setup) - walBefore
                if probes.statements {
                    add(try statementTimes(rig.setup), into: &collectorTimes[r])
                    add(try statementWAL(rig.setup), into: &collectorStatementWAL[r])
                    for (name, blocks) in try statementBuffers(rig.setup) {
                        let sum = collectorStatementBuffers[r][name] ?? (0, 0)
                        collectorStatementBuffers[r][name] = (sum.hit + blocks.hit, sum.read + blocks.read)
                    }
                }
                figures[r].peak.samples += result.latencies.samples
                print(String(format: "%@ round %d: COPY %.0f rows/s, collector %.0f events/s (%.0f%%), %.0f folded (%.0f%%)", figures[r].label, round + 1,
                             copyRates[r][round], peakRates[r][round], peakRates[r][round] / copyRates[r][round] * 100,
                             foldedRates[r][round], foldedRates[r][round] / copyRates[r][round] * 100))
            }
        }
        let millions = Double(options.eventsPerRound * options.rounds) / 1e6
        var measured: [(Figures, [Int])] = []
        for r in rigs.indices {
            figures[r].copyRate = median(copyRates[r])
            figures[r].peakRate = median(peakRates[r])
            figures[r].foldedRate = median(foldedRates[r])
            if probes.cpu != nil {
                figures[r].copyCPU = copyCPUSeconds[r] / millions
                figures[r].collectorCPU = collectorCPUSeconds[r] / millions
            }
            if processCPU(rigs[r].collector!.process.pid) != nil { figures[r].processCPU = processCPUSeconds[r] / millions }
            figures[r].copyWAL = copyWAL[r] / millions
            figures[r].collectorWAL = collectorWAL[r] / millions
            if probes.statements {
                figures[r].collectorStatementWAL = collectorStatementWAL[r].mapValues { $0 / millions }
                figures[r].collectorStatementBuffers = collectorStatementBuffers[r].mapValues { ($0.hit / millions, $0.read / millions) }
            }
            if probes.statements {
                figures[r].copyStatements = copyTimes[r].map { ($0.key, $0.value / millions) }.sorted { $0.1 > $1.1 }
                figures[r].collectorStatements = collectorTimes[r].map { ($0.key, $0.value / millions) }.sorted { $0.1 > $1.1 }
            }
            let halfBatches = try measureHalfPeak(&generators[r], figures: &figures[r], auths: auths[r], start: start, options: options,
                                                  collector: rigs[r].collector!)
            // Batch i of a post goes to app i mod apps.
            func share(_ batches: Int, _ app: Int) -> Int { (batches - app + apps[r].count - 1) / apps[r].count }
            let posted = apps[r].indices.map { a in
                (share(options.batchCount, a) * options.rounds + share(halfBatches, a)) * options.batchSize
            }
            measured.append((figures[r], posted))
        }
        return measured
    }

    /// Before each timed segment, COPY or collector: the work the segments before left running
    /// (autovacuum of the 200,000 rows a segment inserts, autoanalyze, a collector's background
    /// fold; every shape's database is in one cluster) waited for, up to 60 s, then a
    /// CHECKPOINT, so each segment starts with no dirty buffers and no checkpoint due: without
    /// them the COPY baselines of one quiet run moved by 30 % and more between rounds and shapes
    /// (docs/benchmarks.md, "The COPY baseline"). Untimed; needs a superuser for CHECKPOINT (the
    /// bench's WAL preparation does too) and says once when it cannot.
    static func settle(_ connection: PostgresConnection, settling: inout Bool) {
        guard settling else { return }
        let deadline = monotonicNanoseconds() + 60_000_000_000
        var quiet = 0
        do throws(DatabaseError) {
            // Three looks in a row, 100 ms apart, with nothing running.
            while quiet < 3 && monotonicNanoseconds() < deadline {
                quiet = try connection.query(BenchSQL.backgroundWork).value(Int64.self) == 0 ? quiet + 1 : 0
                if quiet < 3 { usleep(100_000) }
            }
            if quiet < 3 { print("bench: background work still running after 60 s; the next segment starts beside it") }
            try connection.query(BenchSQL.checkpoint)
        } catch {
            settling = false
            print("bench: could not settle the cluster before a segment (\(error.code.rawValue) \(error.sqlState ?? "")): segments start beside earlier segments' background work")
        }
    }

    /// Before a shape's first COPY: one untimed transaction of it into the baseline table (then
    /// emptied), so the first timed round does not pay for the session's first COPY (catalog
    /// and plan caches, the table's first extension) and later rounds not.
    static func warmBaseline(_ staged: [StagedBatch], options: Options, on setup: PostgresConnection) throws {
        let group = Array(staged.prefix(max(1, 10_000 / options.batchSize)))
        try setup.transaction { () throws(DatabaseError) in
            try setup.copyIn(BenchSQL.baselineCopy, data: EventCopyRows.encode(group))
        }
    }

    /// The baseline: the round's rows COPYed into the uuid-keyed table (emptied before each round),
    /// 10,000 rows a transaction. Returns rows a second.
    static func copyBaseline(_ staged: [StagedBatch], options: Options, on setup: PostgresConnection) throws -> Double {
        let began = monotonicNanoseconds()
        let chunk = max(1, 10_000 / options.batchSize)
        var i = 0
        while i < staged.count {
            let group = Array(staged[i..<min(staged.count, i + chunk)])
            try setup.transaction { () throws(DatabaseError) in
                try setup.copyIn(BenchSQL.baselineCopy, data: EventCopyRows.encode(group))
            }
            i += chunk
        }
        return Double(options.eventsPerRound) / secondsSince(began)
    }

    /// Half the peak rate, paced: latency when the collector is not saturated. Returns the batches posted.
    static func measureHalfPeak(_ generator: inout WorkloadGenerator, figures: inout Figures, auths: [String], start: Timestamp,
                                options: Options, collector: CollectorProcess) throws -> Int {
        figures.halfOffered = figures.peakRate / 2
        let batchesPerSecond = figures.halfOffered / Double(options.batchSize)
        let now = Timestamp.now
        let bodies = try (0..<max(40, Int((batchesPerSecond * options.halfPeakSeconds).rounded()))).map { _ in
            let batch = deviceBatch(&generator, events: options.batchSize, before: now)
            return try Zlib.compress(wireJSON(batch.events, context: batch.context, sentAt: start))
        }
        let half = try post(bodies, port: collector.port, auths: auths, connections: options.connections,
                            ratePerSecond: batchesPerSecond)
        guard half.failures == 0 else {
            throw CLIError("\(half.failures) batches failed at half peak (first: \(half.firstFailure ?? "?")); see \(collector.log)")
        }
        figures.half = half.latencies
        return bodies.count
    }

    /// The `--json` summary.
    static func summary(_ all: [Figures], options: Options) -> JSONValue {
        func statementJSON(_ list: [(String, Double)]?) -> JSONValue {
            list.map { .object($0.map { ($0.0, .double($0.1)) }) } ?? .null
        }
        func kindJSON(_ f: Figures) -> JSONValue {
            let members: [(String, JSONValue)] = [
                ("shape", .string(f.shape.rawValue)),
                ("ids", .string(f.kind.rawValue)), ("copyRowsPerSecond", .double(f.copyRate)), ("endToEndEventsPerSecond", .double(f.peakRate)),
                ("ratioToCopy", .double(f.ratio)),
                ("foldedEventsPerSecond", .double(f.foldedRate)), ("foldedRatioToCopy", .double(f.foldedRatio)),
                ("peakP50Ms", .double(f.peak.percentile(0.5) * 1000)), ("peakP99Ms", .double(f.peak.percentile(0.99) * 1000)),
                ("halfPeakP50Ms", .double(f.half.percentile(0.5) * 1000)), ("halfPeakP99Ms", .double(f.half.percentile(0.99) * 1000)),
                ("copyDatabaseCPUSecondsPerMillion", f.copyCPU.map { JSONValue.double($0) } ?? .null),
                ("collectorDatabaseCPUSecondsPerMillion", f.collectorCPU.map { JSONValue.double($0) } ?? .null),
                ("collectorProcessCPUSecondsPerMillion", f.processCPU.map { JSONValue.double($0) } ?? .null),
                ("copyStatementSecondsPerMillion", statementJSON(f.copyStatements)),
                ("collectorStatementSecondsPerMillion", statementJSON(f.collectorStatements)),
                ("collectorPeakRSSBytes", .int(f.rss)),
            ]
            return .object(members)
        }
        let first = all.filter { $0.shape == options.workload.shapes[0] }
        let members: [(String, JSONValue)] = [
            ("eventsPerRound", .int(options.eventsPerRound)), ("rounds", .int(options.rounds)),
            ("shapes", .array(options.workload.shapes.map { .string($0.rawValue) })),
            // The first shape's collector and UUIDv7 figure (what the SDK sends), which `tapwire-soak` paces itself by.
            ("collectorPeakRSSBytes", .int(first.last?.rss ?? 0)),
            ("endToEndEventsPerSecond", .double(first.last?.peakRate ?? 0)),
            ("idKinds", .array(all.map(kindJSON))),
        ]
        return .object(members)
    }

    /// A server that has run for a while reuses the WAL segments its checkpoints free; a fresh
    /// cluster creates and zero-fills every segment it writes, and a commit that needs the next
    /// one waits for 16 MiB to be written and synced: the longest stalls of the first runs. So
    /// 96 segments (1.5 GiB, about what a run writes) are created first and checkpointed, for
    /// the baseline and the collector alike. Needs a superuser (pg_switch_wal, CHECKPOINT).
    static func prepareWALSegments(_ connection: PostgresConnection) {
        let segments = 96
        let started = monotonicNanoseconds()
        do throws(DatabaseError) {
            for _ in 0..<segments {
                try connection.query(BenchSQL.walCommit)
                try connection.query(BenchSQL.walSwitch)
            }
            try connection.query(BenchSQL.checkpoint)
            print(String(format: "bench: %d WAL segments created and checkpointed for reuse, as a running server has them (%.1f s)",
                         segments, secondsSince(started)))
        } catch {
            print("bench: could not prepare WAL segments (\(error.code.rawValue) \(error.sqlState ?? "")): the first commits to need a new segment will wait for it; run as a superuser")
        }
    }

    /// One point of the group-commit curve: the collector's writers, linger and fill.
    struct CurvePoint {
        var writers: Int
        var lingerMilliseconds: Int
        var fillEvents: Int

        static func parse(_ text: String) throws -> [CurvePoint] {
            try text.split(separator: ",").map { item in
                let parts = item.split(separator: ":").map { Int($0) }
                guard parts.count == 3, let w = parts[0], let l = parts[1], let f = parts[2], w > 0, l >= 0, f > 0 else {
                    throw CLIError("--curve takes WRITERS:LINGER_MS:FILL_EVENTS points separated by commas, e.g. 1:5:4000,2:20:4000; got \(item)")
                }
                return CurvePoint(writers: w, lingerMilliseconds: l, fillEvents: f)
            }
        }
    }

    /// The group-commit curve: each point on a fresh collector, one round of UUIDv7 batches at
    /// peak, of the first shape.
    static func runCurve(_ points: [CurvePoint], rig: Rig, options: Options, cpu: DatabaseCPU?) throws {
        let batchSize = options.batchSize
        let setup = rig.setup
        var generator = WorkloadGenerator(shape: rig.shape, seed: options.workload.seed &+ 100, endingAt: Timestamp.now, ids: .v7)
        print("\ngroup-commit curve (UUIDv7, shape \(rig.shape.name.rawValue), \(options.eventsPerRound) events a point, \(options.connections) connections):")
        print("writers  linger ms  fill events  events/s   p50 / p99 ms      database CPU s per 1M")
        for (n, point) in points.enumerated() {
            let collector = try CollectorProcess.start(options.tapwire, url: rig.scratch.url, environment: [
                "TAPWIRE_WRITERS": String(point.writers), "TAPWIRE_COMMIT_LINGER_MS": String(point.lingerMilliseconds),
                "TAPWIRE_COMMIT_FILL_EVENTS": String(point.fillEvents),
            ], logName: "tapwire-bench-curve")
            defer { collector.stop() }
            let app = try AppStore().createApp(named: "bench-curve-\(n)", on: setup)
            for manifest in rig.shape.manifests { _ = try ManifestStore().store(manifest, appId: app.appId, on: setup) }
            let auth = "Basic " + Data((app.writeKey.text + ":").utf8).base64EncodedString()
            let start = Timestamp.now
            let bodies = try (0..<options.batchCount).map { _ in
                let batch = deviceBatch(&generator, events: batchSize, before: start)
                return try Zlib.compress(wireJSON(batch.events, context: batch.context, sentAt: start))
            }
            _ = try post(Array(bodies.prefix(20)), port: collector.port, auths: [auth], connections: options.connections, ratePerSecond: nil)
            let cpuBefore = cpu?.seconds()
            let began = monotonicNanoseconds()
            let result = try post(Array(bodies.dropFirst(20)), port: collector.port, auths: [auth], connections: options.connections, ratePerSecond: nil)
            let rate = Double((bodies.count - 20) * batchSize) / secondsSince(began)
            try RollupStore().fold(on: setup)
            let cpuPerMillion = cpuBefore.flatMap { before in cpu.map { ($0.seconds() - before) / (Double((bodies.count - 20) * batchSize) / 1e6) } }
            guard result.failures == 0 else {
                throw CLIError("\(result.failures) batches failed on the curve (first: \(result.firstFailure ?? "?")); see \(collector.log)")
            }
            print(String(format: "%7d  %9d  %11d  %8.0f   %6.1f / %6.1f   %@", point.writers, point.lingerMilliseconds, point.fillEvents, rate,
                         result.latencies.percentile(0.5) * 1000, result.latencies.percentile(0.99) * 1000,
                         cpuPerMillion.map { String(format: "%.1f", $0) } ?? "n/a"))
        }
    }

    /// The figures of every shape and id kind side by side.
    static func printTable(_ all: [Figures]) {
        func row(_ label: String, _ cells: [String]) {
            print(label.padding(toLength: 46, withPad: " ", startingAt: 0) + cells.map { $0.padding(toLength: 24, withPad: " ", startingAt: 0) }.joined())
        }
        func f0(_ v: Double) -> String { String(format: "%.0f", v) }
        func ms(_ l: Latencies) -> String { String(format: "%.1f / %.1f", l.percentile(0.5) * 1000, l.percentile(0.99) * 1000) }
        print("")
        row("", all.map(\.label))
        row("COPY baseline, rows/s (median)", all.map { f0($0.copyRate) })
        row("end to end, events/s (median)", all.map { f0($0.peakRate) })
        row("ratio to COPY", all.map { String(format: "%.2f", $0.ratio) })
        row("acknowledged and folded, events/s (median)", all.map { f0($0.foldedRate) })
        row("ratio to COPY, folded", all.map { String(format: "%.2f", $0.foldedRatio) })
        row("p50 / p99 at peak, ms", all.map { ms($0.peak) })
        row("p50 / p99 at half peak, ms", all.map { ms($0.half) + String(format: " (%.0f/s)", $0.halfOffered) })
        row("database CPU s per 1M: COPY / collector", all.map { f in
            guard let c = f.copyCPU, let e = f.collectorCPU else { return "n/a" }
            return String(format: "%.1f / %.1f (%.2f×)", c, e, e / c)
        })
        row("collector process CPU s per 1M", all.map { f in f.processCPU.map { String(format: "%.1f", $0) } ?? "n/a" })
        row("WAL MB per 1M: COPY / collector", all.map { f in
            guard let c = f.copyWAL, let e = f.collectorWAL else { return "n/a" }
            return String(format: "%.0f / %.0f (%.2f×)", c / 1e6, e / 1e6, c > 0 ? e / c : 0)
        })
        let names = Set(all.flatMap { ($0.collectorStatements ?? []).map(\.0) + ($0.copyStatements ?? []).map(\.0) })
        if !names.isEmpty {
            print("database time per statement, s per 1M events:")
            let order = names.sorted { a, b in
                let ta = all.map { f in f.collectorStatements?.first { $0.0 == a }?.1 ?? f.copyStatements?.first { $0.0 == a }?.1 ?? 0 }.reduce(0, +)
                let tb = all.map { f in f.collectorStatements?.first { $0.0 == b }?.1 ?? f.copyStatements?.first { $0.0 == b }?.1 ?? 0 }.reduce(0, +)
                return ta > tb
            }
            for name in order.prefix(16) {
                row("  " + name, all.map { f in
                    let v = f.collectorStatements?.first { $0.0 == name }?.1 ?? f.copyStatements?.first { $0.0 == name }?.1
                    return v.map { String(format: "%.2f", $0) } ?? "-"
                })
            }
            row("  total: COPY / collector", all.map { f in
                let c = (f.copyStatements ?? []).reduce(0) { $0 + $1.1 }, e = (f.collectorStatements ?? []).reduce(0) { $0 + $1.1 }
                return String(format: "%.1f / %.1f (%.2f×)", c, e, c > 0 ? e / c : 0)
            })
            let walNames = Set(all.flatMap { ($0.collectorStatementWAL ?? [:]).keys })
            if !walNames.isEmpty {
                print("collector's WAL per statement, MB per 1M events (pg_stat_statements):")
                func walTotal(_ name: String) -> Double {
                    var total = 0.0
                    for f in all { total += f.collectorStatementWAL?[name] ?? 0 }
                    return total
                }
                let walOrder = walNames.sorted { walTotal($0) > walTotal($1) }
                for name in walOrder.prefix(10) {
                    let cells: [String] = all.map { (f: Figures) -> String in
                        guard let bytes = f.collectorStatementWAL?[name] else { return "-" }
                        return String(format: "%.1f", bytes / 1e6)
                    }
                    row("  " + name, cells)
                }
            }
            let bufferNames = Set(all.flatMap { ($0.collectorStatementBuffers ?? [:]).keys })
            if !bufferNames.isEmpty {
                print("collector's shared buffers per statement, thousands hit / read per 1M events (pg_stat_statements):")
                func blocksTotal(_ name: String) -> Double {
                    all.reduce(0) { $0 + ($1.collectorStatementBuffers?[name].map { $0.hit + $0.read } ?? 0) }
                }
                for name in bufferNames.sorted(by: { blocksTotal($0) > blocksTotal($1) }).prefix(16) {
                    row("  " + name, all.map { f in
                        f.collectorStatementBuffers?[name].map { String(format: "%.0f / %.0f", $0.hit / 1e3, $0.read / 1e3) } ?? "-"
                    })
                }
            }
        }
        row("collector peak RSS, MiB (whole run)", all.map { String(format: "%.1f", Double($0.rss) / 1_048_576) })
    }

    /// The ingestion targets of the shapes that ran: issue 33's, the real shape at 0.9× the
    /// benchmark shape's ratio to COPY or better with its collector under 100 MiB; issue 35's, the
    /// real shape with conversions at 0.9× the real shape's. Ratios from this run only.
    static func printTargets(_ all: [Figures]) {
        func shape(_ name: WorkloadShape.Name) -> [Figures] { all.filter { $0.shape == name } }
        func verdict(_ met: Bool) -> String { met ? "met" : "NOT MET" }
        /// `measured`'s ratio to COPY against `baseline`'s, per id kind, at 0.9× or better.
        func compare(_ measured: [Figures], against baseline: [Figures], _ title: String) {
            guard !measured.isEmpty, !baseline.isEmpty else { return }
            print(title)
            for kind in EventIDKind.allCases {
                guard let b = baseline.first(where: { $0.kind == kind }), let m = measured.first(where: { $0.kind == kind }) else { continue }
                let relative = b.ratio > 0 ? m.ratio / b.ratio : 0
                let folded = b.foldedRatio > 0 ? m.foldedRatio / b.foldedRatio : 0
                print(String(format: "  %@: ratio to COPY %.2f against %.2f, %.2f× (target ≥ 0.9×): %@; with the round's fold in the clock %.2f against %.2f, %.2f×: %@",
                             kind.rawValue, m.ratio, b.ratio, relative, verdict(relative >= 0.9), m.foldedRatio, b.foldedRatio, folded,
                             verdict(folded >= 0.9)))
            }
        }
        compare(shape(.real), against: shape(.benchmark), "issue 33 ingestion targets (the real shape against the benchmark shape, this run):")
        if !shape(.benchmark).isEmpty, let rss = shape(.real).first?.rss {
            print(String(format: "  real shape's collector peak RSS %.1f MiB (target < 100 MiB): %@", Double(rss) / 1_048_576,
                         verdict(rss < 100 * 1_048_576)))
        }
        compare(shape(.outcomes), against: shape(.real),
                "issue 35 ingestion target (the real shape with conversions against the real shape without, this run):")
        compare(shape(.holdouts), against: shape(.outcomes),
                "issue 36 ingestion target (the real shape with conversions and assignments against it without assignments, this run):")
    }

    /// Database execution time (s) per statement since the last reset, named by the sql/ file
    /// the statement came from.
    static func statementTimes(_ connection: PostgresConnection) throws -> [String: Double] {
        try statementWork(connection).mapValues { $0.seconds }
    }

    /// `statementTimes` with each name's calls.
    static func statementWork(_ connection: PostgresConnection) throws -> [String: (calls: Int, seconds: Double)] {
        try statementSums(BenchSQL.statementsTimes, connection).mapValues { (Int($0[0]), $0[1] / 1000) }
    }

    /// WAL bytes per statement since the last reset, named as `statementWork` names them.
    static func statementWAL(_ connection: PostgresConnection) throws -> [String: Double] {
        try statementSums(BenchSQL.statementsWal, connection).mapValues { $0[0] }
    }

    /// Shared buffers hit and read per statement since the last reset, named as `statementWork` names them.
    static func statementBuffers(_ connection: PostgresConnection) throws -> [String: (hit: Double, read: Double)] {
        try statementSums(BenchSQL.statementsBuffers, connection).mapValues { ($0[0], $0[1]) }
    }

    /// The numeric columns after the statement's text of one of sql/bench/statements_*.sql, summed
    /// per name (`statementName`): several texts of pg_stat_statements come from one sql/ file.
    private static func statementSums(_ sql: SQL, _ connection: PostgresConnection) throws -> [String: [Double]] {
        let names = statementNames()
        var sums: [String: [Double]] = [:]
        for row in try connection.query(sql).rows {
            guard let text = row[0], let name = statementName(text, names) else { continue }
            let values = row.dropFirst().map { $0.flatMap(Double.init) ?? 0 }
            sums[name] = zip(sums[name] ?? Array(repeating: 0, count: values.count), values).map { $0 + $1 }
        }
        return sums
    }

    /// The cluster's WAL insert position, bytes.
    static func walPosition(_ connection: PostgresConnection) throws -> Double {
        Double(try connection.query(BenchSQL.walPosition).scalar ?? "0") ?? 0
    }

    /// A statement's text in pg_stat_statements → the sql/ file it came from, "BEGIN" …, "other";
    /// nil for the bench's own reads of the counters.
    static func statementName(_ text: String, _ names: [String: String]) -> String? {
        let key = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if key.hasPrefix("SELECT pg_stat_statements_reset") || key.hasPrefix("-- Execution time of every statement")
            || key.hasPrefix("-- WAL bytes (full-page images included) of every statement")
            || key.hasPrefix("-- Shared buffers found in the cache") { return nil }
        return names[key] ?? (["BEGIN", "COMMIT", "ROLLBACK"].contains(key) ? key : "other")
    }

    static func statementNames() -> [String: String] {
        let known: [SQL] = [EmbeddedSQL.copyEventIds, EmbeddedSQL.copyStagedIds, EmbeddedSQL.claimEventIds,
                            EmbeddedSQL.copyEvents, EmbeddedSQL.copyRollupDeltaBatch, EmbeddedSQL.takeRollupDeltaBatches, EmbeddedSQL.copyRollupFoldRows,
                            EmbeddedSQL.foldRollupDeltas, EmbeddedSQL.pendingDeltaApps, EmbeddedSQL.foldApps, EmbeddedSQL.ensurePartitions,
                            EmbeddedSQL.summarizeEventRanges, EmbeddedSQL.copyAttributionPending, EmbeddedSQL.pendingAttributionApps, EmbeddedSQL.conversionUpliftDelivered,
                            EmbeddedSQL.attributePending, EmbeddedSQL.attributePart, EmbeddedSQL.copyHoldoutPending, EmbeddedSQL.pendingHoldoutApps,
                            EmbeddedSQL.holdoutsPending,
                            EmbeddedSQL.createStagedIds, BenchSQL.baselineCopy]
        var names: [String: String] = [:]
        for sql in known { names[sql.text.trimmingCharacters(in: .whitespacesAndNewlines)] = (sql.name as NSString).lastPathComponent }
        return names
    }

    static func add(_ times: [String: Double], into total: inout [String: Double]) {
        for (name, seconds) in times { total[name, default: 0] += seconds }
    }

    /// CPU time of the PostgreSQL server's processes, read from /proc: the postmaster's own and
    /// its reaped children's (cutime, cstime), plus every live child's. Nil when the server is
    /// not on this machine.
    struct DatabaseCPU {
        /// Every server's postmaster: one, or a Citus coordinator's and its workers'.
        let postmasters: [Int32]
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))

        init?(backendPID: Int32) { self.init(backendPIDs: [backendPID]) }

        init?(backendPIDs: [Int32]) {
            var found: [Int32] = []
            for backendPID in backendPIDs {
                guard backendPID > 0, let stat = Self.stat(backendPID), stat.count > 2, let parent = Int32(stat[2]),
                      let parentStat = Self.stat(parent), parentStat.first?.contains("postgres") == true || parentStat.first?.contains("postmaster") == true
                else { return nil }
                found.append(parent)
            }
            guard !found.isEmpty else { return nil }
            postmasters = found
        }

        /// The fields of /proc/PID/stat after the pid: (comm), state, ppid, …
        static func stat(_ pid: Int32) -> [String]? {
            guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                  let open = text.firstIndex(of: "("), let close = text.lastIndex(of: ")") else { return nil }
            return [String(text[open...close])] + text[text.index(after: close)...].split(separator: " ").map(String.init)
        }

        func seconds() -> Double {
            var total = 0.0
            let parents = Set(postmasters.map(String.init))
            // Fields after comm: 1 state, 2 ppid, … 12 utime, 13 stime, 14 cutime, 15 cstime.
            for postmaster in postmasters {
                if let own = Self.stat(postmaster), own.count > 15 {
                    total += [12, 13, 14, 15].compactMap { Double(own[$0]) }.reduce(0, +)
                }
            }
            for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
                guard let pid = Int32(entry), let fields = Self.stat(pid), fields.count > 13, parents.contains(fields[2]) else { continue }
                total += [12, 13].compactMap { Double(fields[$0]) }.reduce(0, +)
            }
            return total / ticks
        }
    }

    /// A process's CPU seconds so far (user and system, /proc/PID/stat), nil when unreadable.
    static func processCPU(_ pid: Int32) -> Double? {
        guard let fields = DatabaseCPU.stat(pid), fields.count > 13, let user = Double(fields[12]), let system = Double(fields[13]) else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
    }

    /// The median, or nil when there is no value.
    static func medianOrNil(_ values: [Double]) -> Double? { values.isEmpty ? nil : median(values) }

    struct LoadResult {
        var latencies = Latencies()
        var failures = 0
        /// What went wrong with the first failed batch (status and body, or the client's error).
        var firstFailure: String?

        /// Sends one request on `connection` (opened to `port` first when there is none) and
        /// records how long its answer took; anything but a 200 is a failure, `label` first in
        /// its description. The connection is dropped when it fails or the server closes it.
        mutating func exchange(_ request: [UInt8], port: Int, on connection: inout HTTPClientConnection?, label: String = "") {
            let sent = monotonicNanoseconds()
            do {
                if connection == nil { connection = try HTTPClientConnection(port: port) }
                try connection!.send(request)
                let response = try connection!.readResponse()
                latencies.samples.append(secondsSince(sent))
                if response.status != 200 {
                    failures += 1
                    firstFailure = firstFailure ?? "\(label)HTTP \(response.status): \(String(decoding: response.body.prefix(300), as: UTF8.self))"
                }
                if response.headers["connection"]?.lowercased() == "close" { connection = nil }
            } catch {
                failures += 1
                firstFailure = firstFailure ?? "\(label)\(error)"
                connection = nil
            }
        }
    }

    /// Posts every body once, body i with `auths[i % auths.count]`, spread over `connections`
    /// keep-alive connections; paced to `ratePerSecond` batches a second in total when given.
    static func post(_ bodies: [[UInt8]], port: Int, auths: [String], connections: Int, ratePerSecond: Double?) throws -> LoadResult {
        let next = Atomic<Int>(0)
        let results = Mutex(LoadResult())
        let start = monotonicNanoseconds()
        let group = DispatchGroup()
        for _ in 0..<connections {
            group.enter()
            Thread {
                defer { group.leave() }
                var local = LoadResult()
                var connection = try? HTTPClientConnection(port: port)
                while true {
                    let i = next.wrappingAdd(1, ordering: .relaxed).oldValue
                    guard i < bodies.count else { break }
                    if let rate = ratePerSecond {
                        let due = start + UInt64(Double(i) / rate * 1e9)
                        let now = monotonicNanoseconds()
                        if due > now { usleep(UInt32((due - now) / 1000)) }
                    }
                    let head = httpRequestHead("POST", "/v1/batch", headers: ["Authorization": auths[i % auths.count], "Content-Encoding": "gzip",
                                                                           "Content-Type": "application/json"], contentLength: bodies[i].count)
                    local.exchange(head + bodies[i], port: port, on: &connection)
                }
                results.withLock {
                    $0.latencies.samples += local.latencies.samples
                    $0.failures += local.failures
                    $0.firstFailure = $0.firstFailure ?? local.firstFailure
                }
            }.start()
        }
        group.wait()
        return results.withLock { $0 }
    }

    /// The wire JSON of `POST /v1/batch` for events (`WireBatch`, the SDK's own encoder), sent at
    /// `sentAt` or, when an event is dated later (a conversion up to ten minutes after its
    /// notification, a notification moved to its campaign's start, a half-peak batch drawn after
    /// the run's start), at its latest event: a device sends only events it has recorded, so none
    /// is dated after its batch's sentAt, and the collector's correction (eventTime = receivedAt
    /// - (sentAt - timestamp)) puts none of them ahead of the server's clock (docs/benchmarks.md,
    /// "A report's effect on ingestion").
    static func wireJSON(_ events: [Event], context: DeviceContext, sentAt: Timestamp) -> [UInt8] {
        let wire = WireContext(appVersion: context.appVersion, build: context.build, platform: context.platform,
                               osVersion: context.osVersion, sdk: context.sdk, deviceId: context.deviceId)
        let sent = events.reduce(sentAt) { max($0, $1.deviceTime) }
        return WireBatch.encode(sentAt: sent, context: wire, events: events.map { e in
            WireEvent(eventId: e.eventId, type: WireEventType(rawValue: e.type.rawValue) ?? .sent, timestamp: e.deviceTime,
                      notificationId: e.notificationId, category: e.category, actionIdentifier: e.actionIdentifier,
                      userTextLength: e.userTextLength.map(Int64.init), hasMedia: e.hasMedia, mediaTypes: e.mediaTypes.nameList,
                      mediaRequested: e.mediaRequested, categoryRegistered: e.categoryRegistered, campaign: e.campaign,
                      variant: e.variant, deliveredAt: e.deliveredAt, name: e.conversion?.name, value: e.conversion?.value,
                      currency: e.conversion?.currency, deviceId: e.deviceId)
        })
    }

    static func waitForHealth(port: Int) -> Bool {
        for _ in 0..<300 {
            if let connection = try? HTTPClientConnection(port: port),
               (try? connection.send(httpRequestHead("GET", "/healthz", headers: [:], contentLength: nil))) != nil,
               (try? connection.readResponse())?.status == 200 { return true }
            usleep(100_000)
        }
        return false
    }

    /// The `tapwire` binary to start the collector from: --tapwire, else TAPWIRE_BINARY, else the
    /// one next to this executable (both are built into the same .build directory).
    static func tapwirePath(_ option: String?) throws -> String {
        let me = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        let path = option ?? ProcessInfo.processInfo.environment["TAPWIRE_BINARY"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (me as NSString).deletingLastPathComponent + "/tapwire"
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw CLIError("\(path) is not an executable `tapwire` (build it with `swift build --product tapwire`, or pass --tapwire PATH)")
        }
        return path
    }
}
