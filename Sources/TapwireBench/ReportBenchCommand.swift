import Foundation
import TapwireBenchCore
import TapwireCommandLine
import TapwireCore
import TapwireReport
import TapwireStore

/// `tapwire-bench report`: the report benchmark of `make bench`. For each shape, loads its events
/// straight into `events` of a database of its own, runs `tapwire rollups rebuild`, measures the
/// rollups' rows and bytes, then times the 30-day engagement report from the rollups, the shapes
/// alternated run by run, against the same report computed from raw events.
enum ReportBenchCommand {
    static let usage = """
    tapwire-bench report [--shape benchmark|real|outcomes|benchmark,real,outcomes] [--events N] [--seed 42] [--runs N]
                         [--raw-runs N] [--time-zone ZONE[,ZONE…]] [--time-limit SECONDS]
                         [--rebuild-limit SECONDS] [--keep | --reuse [--rebuild]] [--skip-raw]
                         [--tapwire PATH] [--database-url URL]
      For each shape (docs/benchmarks.md; default benchmark), creates the database
      tapwire_bench_report_SHAPE_EVENTS_SEED next to the one the URL names, loads N events
      (default 10,000,000) of one app over 30 days straight into events, stores the app's
      manifests, and runs `tapwire rollups rebuild` (events per second, peak RSS). Prints the rows
      and bytes of every rollup table (rollup_*, not the pending deltas, and mismatch_usage_*) per
      1M events and against the events' own bytes. Then, in each zone of --time-zone (default
      UTC,Asia/Kolkata), times the 30-day report: once as a whole process (`tapwire report
      --format json`: wall time and peak RSS), then --runs times (default 7) in this process,
      alternating the shapes run by run, and
      prints every run and the median; then from raw events (--raw-runs, default 1), checking the
      numbers are identical. With both shapes, prints issue 33's targets as met or not.
      Exits 1 if a shape's rollup report takes 100 ms or more, exceeds the time limit, or differs
      from the raw one.
      --time-limit     a whole-process report, an in-process run or a raw run that takes longer
                       is reported as exceeding it, and that shape's remaining runs in the zone
                       are skipped (default 60; the whole-process one is killed at it)
      --rebuild-limit  the rebuild is killed at this many seconds (default 900): its events per
                       second are then those of the days it finished, and the shape's reports are
                       skipped
      --keep           keep the databases (their names are printed); --reuse times the reports of
                       kept ones without loading again (--rebuild: and rebuilds their rollups
                       first, as after a migration that changes them)
      --skip-raw       leave out the raw-events baseline, and with it the check that the numbers
                       are identical
    """

    struct Options {
        /// --shape and --seed.
        var workload: WorkloadOptions
        var events: Int
        var runs: Int
        var rawRuns: Int
        var timeZones: [String]
        var timeLimit: Double
        var rebuildLimit: Double
        var keep: Bool
        var reuse: Bool
        var rebuild: Bool
        var skipRaw: Bool
        var tapwire: String
        var location: DatabaseLocation

        init(_ args: inout Arguments) throws {
            workload = try WorkloadOptions(&args)
            events = try args.int("events") ?? 10_000_000
            guard events > 0, events <= 200_000_000 else { throw CLIError("--events must be from 1 to 200,000,000") }
            runs = max(1, try args.int("runs") ?? 7)
            rawRuns = max(1, try args.int("raw-runs") ?? 1)
            timeZones = (try args.option("time-zone") ?? "UTC,Asia/Kolkata").split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            guard timeZones.allSatisfy({ !$0.isEmpty }) else {
                throw CLIError("--time-zone takes zone names separated by commas, such as UTC,Asia/Kolkata")
            }
            timeLimit = try args.double("time-limit") ?? 60
            rebuildLimit = try args.double("rebuild-limit") ?? 900
            guard timeLimit > 0, rebuildLimit > 0 else { throw CLIError("--time-limit and --rebuild-limit must be positive numbers of seconds") }
            reuse = args.flag("reuse")
            keep = args.flag("keep") || reuse
            rebuild = args.flag("rebuild")
            guard !rebuild || reuse else { throw CLIError("--rebuild goes with --reuse (a run that loads always rebuilds)") }
            skipRaw = args.flag("skip-raw")
            tapwire = try BenchCommand.tapwirePath(try args.option("tapwire"))
            location = try DatabaseLocation.resolve(&args)
            try args.finish()
        }
    }

    /// What `tapwire rollups rebuild` did.
    struct Rebuild {
        var seconds: Double
        var daysDone: Int
        var days: Int
        var events: Int
        var peakResidentBytes: Int
        var stoppedAtLimit: Bool
        var eventsPerSecond: Double { seconds > 0 ? Double(events) / seconds : 0 }
    }

    /// Rows and bytes of each measured table.
    struct Sizes {
        var tables: [(name: String, rows: Int, bytes: Int)]
        /// Rows per grain, of the tables that have grains.
        var grains: [String: [(grain: Int, rows: Int)]] = [:]
        var eventRows: Int
        var eventBytes: Int
        var rollupRows: Int { tables.reduce(0) { $0 + $1.rows } }
        var rollupBytes: Int { tables.reduce(0) { $0 + $1.bytes } }
    }

    /// One shape's database and app, and what was measured of it before the reports.
    struct Loaded {
        var shape: WorkloadShape
        var database: ScratchDatabase
        var connection: PostgresConnection
        var appId: Int64
        var appName: String
        var events: Int
        var rebuild: Rebuild?
        var sizes: Sizes?
        var label: String { shape.name.rawValue }
    }

    /// What one zone's reports measured for one shape.
    struct ZoneFigures {
        var whole: TimedChild?
        var runs: [Double] = []
        var raw: [Double] = []
        /// Why the shape's runs stopped early in this zone, if they did.
        var stopped: String?
        var identical: Bool?
        var median: Double? { BenchCommand.medianOrNil(runs) }
    }

    static let windowStart = Timestamp(iso8601: "2026-10-01T00:00:00Z")!
    static let windowDays = 30

    static func say(_ line: String) { FileHandle.standardOutput.write(Data(("bench-report: " + line + "\n").utf8)) }

    static func run(_ args: inout Arguments) throws -> Int32 {
        let options = try Options(&args)
        let end = windowStart.adding(microseconds: Int64(windowDays) * 86_400_000_000)
        var loaded: [Loaded] = []
        defer {
            for shape in loaded {
                shape.connection.close()
                if options.keep { say("kept database \(shape.database.name) (app \(shape.appName)): --reuse times it again") } else { shape.database.drop() }
            }
        }
        for name in options.workload.shapes {
            let databaseName = "tapwire_bench_report_\(name.rawValue)_\(options.events)_\(options.workload.seed)"
            let database = try ScratchDatabase.open(named: databaseName, beside: options.location, reuse: options.reuse,
                                                    keptBy: "run once with --keep and the same --shape, --events and --seed")
            let connection: PostgresConnection
            do { connection = try PostgresConnection(url: database.url) } catch { if !options.keep { database.drop() }; throw error }
            let appName = "bench-report-" + name.rawValue
            loaded.append(Loaded(shape: .named(name), database: database, connection: connection, appId: 0, appName: appName, events: options.events))
            let i = loaded.count - 1
            try Migrator().migrate(connection)
            say("shape \(name.rawValue): database \(databaseName), app \(appName)")
            if options.reuse {
                loaded[i].appId = try AppStore().app(named: appName, on: connection).appId
                loaded[i].events = Int(try connection.query(BenchSQL.reportEventsBetween, [String(loaded[i].appId), windowStart.description, end.description]).scalar ?? "0") ?? 0
                say("\(name.rawValue): reusing its \(loaded[i].events) events\(options.rebuild ? "" : " and rollups")")
            } else {
                loaded[i].appId = try AppStore().createApp(named: appName, on: connection).appId
                try load(loaded[i], seed: options.workload.seed)
            }
            if !options.reuse || options.rebuild {
                try connection.query(BenchSQL.analyzeDatabase)
                loaded[i].rebuild = try rebuild(loaded[i], until: end, tapwire: options.tapwire, limit: options.rebuildLimit)
            }
            // Vacuumed, not only analyzed: the reports are timed on settled tables, not beside
            // autovacuum's first pass over the rollups just rebuilt (sql/bench/vacuum_database.sql).
            try connection.query(BenchSQL.vacuumDatabase)
            loaded[i].sizes = try sizes(loaded[i])
        }

        var failures: [String] = []
        var zones: [(zone: String, figures: [ZoneFigures])] = []
        for timeZone in options.timeZones {
            let figures = try measure(loaded, timeZone: timeZone, to: end, options: options)
            zones.append((timeZone, figures))
            for (shape, f) in zip(loaded, figures) {
                if let stopped = f.stopped { failures.append("\(shape.label) in \(timeZone): \(stopped)") }
                if let median = f.median, median >= 0.1 { failures.append("the \(shape.label) report in \(timeZone) took 100 ms or more") }
                if f.identical == false { failures.append("the \(shape.label) rollup report in \(timeZone) differs from the raw one") }
            }
        }
        printSummary(loaded, zones: zones)
        guard failures.isEmpty else {
            for failure in failures { say("FAIL: " + failure) }
            return 1
        }
        say("PASS: every shape's report under 100 ms in " + options.timeZones.joined(separator: " and "))
        return 0
    }

    // MARK: - Loading, rebuilding, sizes

    /// The shape's events of the 30 days, straight into `events` (no dedup, no rollups), in
    /// chunks of about 100,000, after the app's manifests.
    static func load(_ shape: Loaded, seed: UInt64) throws {
        for manifest in shape.shape.manifests { _ = try ManifestStore().store(manifest, appId: shape.appId, on: shape.connection) }
        let began = monotonicNanoseconds()
        var generator = WorkloadGenerator(shape: shape.shape, seed: seed, start: windowStart, days: windowDays, ids: .v7)
        var chunk: [StagedBatch] = []
        var inChunk = 0
        try generator.spread(events: shape.events) { batch in
            chunk.append(StagedBatch(appId: shape.appId, receivedAt: batch.events[batch.events.count - 1].eventTime, context: batch.context,
                                     events: batch.events))
            inChunk += batch.events.count
            if inChunk >= 100_000 {
                try BulkLoad.copyEvents(chunk, on: shape.connection)
                chunk.removeAll(keepingCapacity: true)
                inChunk = 0
            }
        }
        if !chunk.isEmpty { try BulkLoad.copyEvents(chunk, on: shape.connection) }
        let seconds = secondsSince(began)
        say(String(format: "%@: %d events of 30 days generated and loaded in %.1f s", shape.label, shape.events, seconds))
    }

    /// `tapwire rollups rebuild` of the app's 30 days, as a user runs it, killed at the limit.
    static func rebuild(_ shape: Loaded, until end: Timestamp, tapwire: String, limit: Double) throws -> Rebuild {
        let child = try TimedChild.run(tapwire, ["rollups", "rebuild", "--app", shape.appName, "--from", windowStart.iso8601(fractionDigits: 0),
                                                          "--to", end.iso8601(fractionDigits: 0), "--database-url", shape.database.url],
                                       limit: limit, logName: "tapwire-bench-rebuild")
        let output = child.output
        if let status = child.status, status != 0 {
            throw CLIError("tapwire rollups rebuild failed (exit \(status)): \(output.suffix(500))")
        }
        child.discardLog()
        // One line per day, from the last day to the first: "rebuilt <day start> to <day end>".
        let days = output.split(separator: "\n").filter { $0.hasPrefix("rebuilt 2") }
        let firstDone = days.compactMap { $0.split(separator: " ").dropFirst().first.flatMap { Timestamp(iso8601: String($0)) } }.min()
        let events = try firstDone.map {
            Int(try shape.connection.query(BenchSQL.reportEventsBetween, [String(shape.appId), $0.description, end.description]).scalar ?? "0") ?? 0
        } ?? 0
        let result = Rebuild(seconds: child.seconds, daysDone: days.count, days: windowDays, events: events,
                             peakResidentBytes: child.peakResidentBytes, stoppedAtLimit: child.exceeded)
        if result.stoppedAtLimit {
            say(String(format: "%@: tapwire rollups rebuild STOPPED at the limit (%g s) after %d of %d days: %d events, %.0f events/s, peak RSS %.1f MiB",
                       shape.label, limit, result.daysDone, result.days, events, result.eventsPerSecond, mebibytes(result.peakResidentBytes)))
        } else {
            say(String(format: "%@: tapwire rollups rebuild: %d days, %d events in %.1f s: %.0f events/s, peak RSS %.1f MiB", shape.label,
                       result.daysDone, events, result.seconds, result.eventsPerSecond, mebibytes(result.peakResidentBytes)))
        }
        return result
    }

    static func sizes(_ shape: Loaded) throws -> Sizes {
        var sizes = Sizes(tables: [], eventRows: 0, eventBytes: 0)
        for row in try shape.connection.query(BenchSQL.reportRollupSizes).rows {
            let name = row[0] ?? "?", rows = Int(row[1] ?? "0") ?? 0, bytes = Int(row[2] ?? "0") ?? 0
            if name == "events" { sizes.eventRows = rows; sizes.eventBytes = bytes } else { sizes.tables.append((name, rows, bytes)) }
        }
        for row in try shape.connection.query(BenchSQL.reportRollupGrains).rows {
            guard let name = row[0], let grain = row[1].flatMap({ Int($0) }), let rows = row[2].flatMap({ Int($0) }) else { continue }
            sizes.grains[name, default: []].append((grain, rows))
        }
        let perMillion = 1e6 / Double(max(1, sizes.eventRows))
        say(String(format: "%@: per 1M events: %.0f rollup rows, %.1f MiB of rollups against %.1f MiB of events: rollup / event bytes %.2f%@",
                   shape.label, Double(sizes.rollupRows) * perMillion, mebibytes(sizes.rollupBytes) * perMillion,
                   mebibytes(sizes.eventBytes) * perMillion, Double(sizes.rollupBytes) / Double(max(1, sizes.eventBytes)),
                   shape.rebuild?.stoppedAtLimit == true ? " (PARTIAL: only the days the stopped rebuild finished have rollups)" : ""))
        for table in sizes.tables {
            let grains = (sizes.grains[table.name] ?? []).map { "grain \($0.grain): \($0.rows)" }.joined(separator: ", ")
            say(String(format: "%@:   %@ %d rows%@, %.1f MiB (per 1M events: %.0f rows, %.1f MiB)", shape.label, table.name, table.rows,
                       grains.isEmpty ? "" : " (" + grains + ")", mebibytes(table.bytes), Double(table.rows) * perMillion,
                       mebibytes(table.bytes) * perMillion))
        }
        say(String(format: "%@:   events %d rows, %.1f MiB", shape.label, sizes.eventRows, mebibytes(sizes.eventBytes)))
        return sizes
    }

    // MARK: - The reports

    /// One zone: each shape's whole-process report, then the in-process runs alternated between
    /// the shapes, then the raw-events baseline.
    static func measure(_ shapes: [Loaded], timeZone: String, to end: Timestamp, options: Options) throws -> [ZoneFigures] {
        say("30-day report, days in \(timeZone)")
        var figures = shapes.map { _ in ZoneFigures() }
        for (i, shape) in shapes.enumerated() {
            if let rebuild = shape.rebuild, rebuild.stoppedAtLimit {
                figures[i].stopped = "no report: the rebuild did not finish within --rebuild-limit"
                continue
            }
            let out = NSTemporaryDirectory() + "tapwire-bench-report-\(getpid()).json"
            defer { try? FileManager.default.removeItem(atPath: out) }
            let whole = try TimedChild.run(options.tapwire, ["report", "--app", shape.appName, "--from", windowStart.iso8601(fractionDigits: 0),
                                                              "--to", end.iso8601(fractionDigits: 0), "--tz", timeZone, "--format", "json",
                                                              "--out", out, "--database-url", shape.database.url],
                                           limit: options.timeLimit, logName: "tapwire-bench-report")
            figures[i].whole = whole
            if whole.exceeded {
                figures[i].stopped = String(format: "the whole-process report exceeded the time limit (%g s) and was killed", options.timeLimit)
            } else if whole.status != 0 {
                throw CLIError("tapwire report failed (exit \(whole.status ?? -1)): \(whole.output.suffix(500))")
            }
            whole.discardLog()
            say(String(format: "  %@: whole process (tapwire report --format json): %@, peak RSS %.1f MiB", shape.label,
                       whole.exceeded ? String(format: "EXCEEDED %g s", options.timeLimit) : String(format: "%.1f ms", whole.seconds * 1000),
                       mebibytes(whole.peakResidentBytes)))
        }

        // As the collector keeps one: each manifest decoded once, by the warm-up run.
        let service = EngagementReportService(manifestCache: ManifestCache())
        func report(_ shape: Loaded, _ source: ReportSource) throws -> (seconds: Double, report: EngagementReport) {
            let began = monotonicNanoseconds()
            let report = try service.report(appName: shape.appName,
                                            scope: ReportScope(appId: shape.appId, from: windowStart, to: end, timeZone: timeZone, source: source),
                                            on: shape.connection, now: windowStart)
            return (secondsSince(began), report)
        }
        var last: [EngagementReport?] = shapes.map { _ in nil }
        // Warm each connection once, as a dashboard that is open would.
        for i in shapes.indices where figures[i].stopped == nil {
            let warm = try report(shapes[i], .rollups)
            if warm.seconds > options.timeLimit { figures[i].stopped = exceededMessage("the warm-up run", warm.seconds, options) }
        }
        for _ in 0..<options.runs {
            for i in shapes.indices where figures[i].stopped == nil {
                let run = try report(shapes[i], .rollups)
                figures[i].runs.append(run.seconds)
                last[i] = run.report
                if run.seconds > options.timeLimit { figures[i].stopped = exceededMessage("an in-process run", run.seconds, options) }
            }
        }
        for (i, shape) in shapes.enumerated() {
            let f = figures[i]
            say("  \(shape.label): in-process runs, ms: " + list(f.runs) + (f.median.map { String(format: "; median %.1f ms", $0 * 1000) } ?? ""))
        }
        if shapes.count > 1, let base = figures[0].median {
            for i in shapes.indices.dropFirst() {
                if let median = figures[i].median {
                    say(String(format: "  %@ / %@, medians: %.2f", shapes[i].label, shapes[0].label, median / base))
                }
            }
        }

        if options.skipRaw {
            say("  the raw-events baseline is skipped (--skip-raw): the numbers are not checked")
            return figures
        }
        for (i, shape) in shapes.enumerated() {
            guard figures[i].stopped == nil, let fast = last[i] else { continue }
            // The baseline gets PostgreSQL's defaults (JIT on), its best case for a long scan.
            try shape.connection.query(BenchSQL.sessionJit, ["on"])
            try shape.connection.query(BenchSQL.sessionStatementTimeout, [String(Int(options.timeLimit * 1000)) + "ms"])
            defer {
                _ = try? shape.connection.query(BenchSQL.sessionJit, ["off"])
                _ = try? shape.connection.query(BenchSQL.sessionStatementTimeout, ["0"])
            }
            var slow: EngagementReport?
            for _ in 0..<options.rawRuns {
                let run: (seconds: Double, report: EngagementReport)
                do {
                    run = try report(shape, .rawEvents)
                } catch ReportFailure.database(let error) where error.isQueryCanceled {
                    figures[i].stopped = String(format: "the raw-events report exceeded the time limit (%g s)", options.timeLimit)
                    break
                }
                figures[i].raw.append(run.seconds)
                slow = run.report
                if run.seconds > options.timeLimit { figures[i].stopped = exceededMessage("the raw-events report", run.seconds, options); break }
            }
            guard let slow else {
                say("  \(shape.label): raw events: \(figures[i].stopped ?? "not run")")
                continue
            }
            var comparable = fast
            comparable.source = .rawEvents
            figures[i].identical = comparable == slow
            let rawMedian = BenchCommand.median(figures[i].raw)
            say(String(format: "  %@: same report from raw events, ms: %@ (ratio raw / rollups %.0fx); numbers identical: %@", shape.label,
                       list(figures[i].raw), rawMedian / (figures[i].median ?? rawMedian), figures[i].identical! ? "yes" : "NO"))
        }
        return figures
    }

    static func exceededMessage(_ what: String, _ seconds: Double, _ options: Options) -> String {
        String(format: "%@ took %.1f s, over the time limit (%g s)", what, seconds, options.timeLimit)
    }

    static func list(_ seconds: [Double]) -> String {
        seconds.isEmpty ? "none" : seconds.map { String(format: "%.1f", $0 * 1000) }.joined(separator: ", ")
    }

    static func mebibytes(_ bytes: Int) -> Double { Double(bytes) / 1_048_576 }

    // MARK: - Summary

    /// One table, a column per shape; then issue 33's targets when both shapes ran.
    static func printSummary(_ shapes: [Loaded], zones: [(zone: String, figures: [ZoneFigures])]) {
        func row(_ label: String, _ cells: [String]) {
            print(label.padding(toLength: 52, withPad: " ", startingAt: 0) + cells.map { $0.padding(toLength: 30, withPad: " ", startingAt: 0) }.joined())
        }
        func perMillion(_ shape: Loaded, _ value: Int) -> Double { Double(value) * 1e6 / Double(max(1, shape.sizes?.eventRows ?? shape.events)) }
        /// Rollups measured after a stopped rebuild hold only the days it finished.
        func partial(_ shape: Loaded) -> String { shape.rebuild?.stoppedAtLimit == true ? " (partial)" : "" }
        print("")
        row("", shapes.map(\.label))
        row("events", shapes.map { String($0.sizes?.eventRows ?? $0.events) })
        row("rollup rows per 1M events", shapes.map { s in s.sizes.map { String(format: "%.0f", perMillion(s, $0.rollupRows)) + partial(s) } ?? "-" })
        row("rollup MiB per 1M events", shapes.map { s in
            s.sizes.map { String(format: "%.1f", mebibytes(Int(perMillion(s, $0.rollupBytes)))) + partial(s) } ?? "-"
        })
        row("event MiB per 1M events", shapes.map { s in s.sizes.map { String(format: "%.1f", mebibytes(Int(perMillion(s, $0.eventBytes)))) } ?? "-" })
        row("rollup bytes / event bytes", shapes.map { s in
            s.sizes.map { String(format: "%.2f", Double($0.rollupBytes) / Double(max(1, $0.eventBytes))) + partial(s) } ?? "-"
        })
        row("rebuild events/s (peak RSS MiB)", shapes.map { s in
            s.rebuild.map { String(format: "%.0f%@ (%.0f)", $0.eventsPerSecond, $0.stoppedAtLimit ? " STOPPED \($0.daysDone)/\($0.days) days" : "",
                                   mebibytes($0.peakResidentBytes)) } ?? "not rebuilt (--reuse)"
        })
        for (zone, figures) in zones {
            row("report \(zone), median ms (runs)", figures.map { f in
                f.median.map { String(format: "%.1f (%d)", $0 * 1000, f.runs.count) } ?? (f.stopped == nil ? "-" : "exceeded")
            })
            row("  whole process ms, peak RSS MiB", figures.map { f in
                f.whole.map { w in w.exceeded ? String(format: "killed at %.1f s, %.0f", w.seconds, mebibytes(w.peakResidentBytes))
                    : String(format: "%.1f, %.1f", w.seconds * 1000, mebibytes(w.peakResidentBytes)) } ?? "-"
            })
            row("  raw events ms, identical", figures.map { f in
                f.raw.isEmpty ? "-" : String(format: "%.0f, %@", BenchCommand.median(f.raw) * 1000, f.identical.map { $0 ? "yes" : "NO" } ?? "-")
            })
        }
        func verdict(_ met: Bool) -> String { met ? "met" : "NOT MET" }
        if let o = shapes.firstIndex(where: { $0.shape.name == .outcomes }) {
            print("issue 35 target (the real shape with conversions, this run):")
            for (zone, figures) in zones {
                guard let median = figures[o].median else { print("  report in \(zone): not measured: NOT MET"); continue }
                print(String(format: "  report with conversions in %@ under 100 ms: %.1f ms: %@", zone, median * 1000, verdict(median < 0.1)))
            }
        }
        guard let b = shapes.firstIndex(where: { $0.shape.name == .benchmark }), let r = shapes.firstIndex(where: { $0.shape.name == .real }) else { return }
        print("issue 33 targets (the real shape, this run):")
        for (zone, figures) in zones {
            guard let real = figures[r].median else {
                print("  report in \(zone): not measured (\(figures[r].stopped ?? "no runs")): NOT MET")
                continue
            }
            print(String(format: "  report in %@ under 100 ms: %.1f ms: %@", zone, real * 1000, verdict(real < 0.1)))
            if let bench = figures[b].median {
                print(String(format: "  report in %@ at most 2× the benchmark shape's: %.2f×: %@", zone, real / bench, verdict(real <= 2 * bench)))
            }
            if let whole = figures[r].whole {
                print(String(format: "  report in %@, memory under 100 MiB (whole process peak RSS): %.1f MiB: %@", zone,
                             mebibytes(whole.peakResidentBytes), verdict(whole.peakResidentBytes < 100 * 1_048_576)))
            }
        }
        if shapes[r].rebuild?.stoppedAtLimit == true {
            print("  all rollup tables at most half the events' bytes: not measured (the rebuild was stopped): NOT MET")
        } else if let sizes = shapes[r].sizes {
            let ratio = Double(sizes.rollupBytes) / Double(max(1, sizes.eventBytes))
            print(String(format: "  all rollup tables at most half the events' bytes: %.2f×: %@", ratio, verdict(ratio <= 0.5)))
        }
        if let rebuild = shapes[r].rebuild {
            print(String(format: "  rebuild at least 100k events/s: %.0f events/s%@: %@", rebuild.eventsPerSecond,
                         rebuild.stoppedAtLimit ? " (stopped at the limit)" : "", verdict(!rebuild.stoppedAtLimit && rebuild.eventsPerSecond >= 100_000)))
        }
    }
}
