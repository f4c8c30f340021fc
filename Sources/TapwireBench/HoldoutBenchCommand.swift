import Foundation
import TapwireBenchCore
import TapwireCommandLine
import TapwireCore
import TapwireReport
import TapwireStore

/// `tapwire-bench holdouts`: the cost of the holdout report (issue 36, docs/holdouts.md "Cost").
/// Two apps with the same engagement events; one also has a campaign of N assigned devices, loaded
/// straight into events by SQL and folded by `tapwire rollups rebuild` (the fold production runs,
/// tapwire_holdouts_pending), so rollup_holdouts is what the collector would have kept. Then the
/// 30-day report of each, alternated run by run: the engagement-only one is the baseline.
enum HoldoutBenchCommand {
    static let usage = """
    tapwire-bench holdouts [--devices N] [--events N] [--seed 42] [--runs N] [--time-limit SECONDS]
                           [--rebuild-limit SECONDS] [--keep | --reuse] [--tapwire PATH] [--database-url URL]
      Creates the database tapwire_bench_holdouts_DEVICES_EVENTS_SEED next to the one the URL names,
      with two apps, each loaded with the same N engagement events of the real shape over 30 days
      (--events, default 1,000,000, straight into events), and one of them with a campaign of
      --devices assigned devices (default 10,000,000; 10 % held out, 5 % converting held out and
      6 % treated within 7 days), posted into events by SQL (sql/bench/holdout_generate.sql).
      `tapwire rollups rebuild` of each app makes its rollups, and of the campaign's app queues its
      assignments and conversions day by day into the holdout fold. Prints what the fold kept
      against what was posted, then times the 30-day report (`tapwire report --format json` as a
      whole process, then --runs in-process runs, default 9) of both apps, alternated, with every
      run, the medians and their ratio. Exits 1 if the campaign's report takes 250 ms or more
      (median), or the fold's counts differ from the devices posted.
      --keep / --reuse  keep the database; time a kept one again without loading
    """

    struct Options {
        var devices: Int
        var events: Int
        var seed: UInt64
        var runs: Int
        var timeLimit: Double
        var rebuildLimit: Double
        var keep: Bool
        var reuse: Bool
        var tapwire: String
        var location: DatabaseLocation

        init(_ args: inout Arguments) throws {
            devices = try args.int("devices") ?? 10_000_000
            guard (1_000...50_000_000).contains(devices) else { throw CLIError("--devices must be from 1,000 to 50,000,000") }
            events = try args.int("events") ?? 1_000_000
            guard (1...200_000_000).contains(events) else { throw CLIError("--events must be from 1 to 200,000,000") }
            let seedValue = try args.int("seed") ?? 42
            guard seedValue >= 0 else { throw CLIError("--seed must be 0 or more, got \(seedValue)") }
            seed = UInt64(seedValue)
            runs = max(1, try args.int("runs") ?? 9)
            timeLimit = try args.double("time-limit") ?? 60
            rebuildLimit = try args.double("rebuild-limit") ?? 7_200
            guard timeLimit > 0, rebuildLimit > 0 else { throw CLIError("--time-limit and --rebuild-limit must be positive numbers of seconds") }
            reuse = args.flag("reuse")
            keep = args.flag("keep") || reuse
            tapwire = try BenchCommand.tapwirePath(try args.option("tapwire"))
            location = try DatabaseLocation.resolve(&args)
            try args.finish()
        }
    }

    static let holdoutShare = 0.1, baseRate = 0.05, effect = 0.01
    static let target = 0.25

    static func say(_ line: String) { FileHandle.standardOutput.write(Data(("bench-holdouts: " + line + "\n").utf8)) }

    static func run(_ args: inout Arguments) throws -> Int32 {
        let options = try Options(&args)
        let start = ReportBenchCommand.windowStart, days = ReportBenchCommand.windowDays
        let end = start.adding(microseconds: Int64(days) * 86_400_000_000)
        let name = "tapwire_bench_holdouts_\(options.devices)_\(options.events)_\(options.seed)"
        let database = try ScratchDatabase.open(named: name, beside: options.location, reuse: options.reuse,
                                                keptBy: "run once with --keep and the same --devices, --events and --seed")
        let connection: PostgresConnection
        do { connection = try PostgresConnection(url: database.url) } catch { if !options.keep { database.drop() }; throw error }
        defer {
            connection.close()
            if options.keep { say("kept database \(name): --reuse times it again") } else { database.drop() }
        }
        try Migrator().migrate(connection)
        var apps: [ReportBenchCommand.Loaded] = []
        for appName in ["bench-engagement", "bench-holdout"] {
            var app = ReportBenchCommand.Loaded(shape: .real, database: database, connection: connection, appId: 0, appName: appName,
                                                events: options.events)
            if options.reuse {
                app.appId = try AppStore().app(named: appName, on: connection).appId
            } else {
                app.appId = try AppStore().createApp(named: appName, on: connection).appId
                say("\(appName): the real shape's engagement events")
                try ReportBenchCommand.load(app, seed: options.seed)
            }
            apps.append(app)
        }
        let campaign = apps[1]
        if !options.reuse {
            let began = monotonicNanoseconds()
            try connection.query(EmbeddedSQL.ensurePartitions, [start.description, end.description])
            try connection.query(BenchSQL.holdoutSeed, [String(Double(options.seed % 1000) / 1000)])
            try connection.query(BenchSQL.holdoutGenerate, [String(campaign.appId), String(options.devices), start.description, String(days),
                                                            String(holdoutShare), String(baseRate), String(effect)])
            say(String(format: "bench-holdout: %d devices assigned to campaign bench-holdout (10 %% held out) and their conversions loaded into events in %.1f s",
                       options.devices, secondsSince(began)))
            try connection.query(BenchSQL.analyzeDatabase)
            for app in apps {
                say("\(app.appName): rebuilding its rollups (and, for bench-holdout, folding its holdouts day by day)")
                let rebuild = try ReportBenchCommand.rebuild(app, until: end, tapwire: options.tapwire, limit: options.rebuildLimit)
                if rebuild.stoppedAtLimit { throw CLIError("the rebuild of \(app.appName) did not finish within --rebuild-limit") }
            }
            try connection.query(BenchSQL.analyzeDatabase)
        }

        var failures: [String] = []
        let check = try connection.query(BenchSQL.holdoutRollupCheck, [String(campaign.appId)]).rows.first ?? []
        let figure = check.map { Int($0 ?? "") ?? -1 }
        say("bench-holdout: rollup_holdouts \(figure[0]) rows; devices assigned \(figure[1]) treated + \(figure[2]) held out = \(figure[1] + figure[2]), "
            + "\(figure[3]) converted; holdout_assignments \(figure[4]) rows; devices posted \(figure[5]); queue rows left \(figure[6])")
        if figure[1] + figure[2] != figure[5] || figure[4] != figure[5] || figure[6] != 0 {
            failures.append("the fold's counts differ from the devices posted")
        }
        for row in try connection.query(BenchSQL.holdoutTableSizes).rows {
            say("  \(row[0] ?? "?"): \(row[1] ?? "?") rows, \(String(format: "%.1f", (Double(row[2] ?? "0") ?? 0) / 1_048_576)) MiB")
        }

        // Whole processes first, then the in-process runs, alternated.
        var whole: [TimedChild] = []
        for app in apps {
            let out = NSTemporaryDirectory() + "tapwire-bench-holdouts-\(getpid()).json"
            defer { try? FileManager.default.removeItem(atPath: out) }
            let child = try TimedChild.run(options.tapwire, ["report", "--app", app.appName, "--from", start.iso8601(fractionDigits: 0),
                                                              "--to", end.iso8601(fractionDigits: 0), "--format", "json", "--out", out,
                                                              "--database-url", database.url],
                                           limit: options.timeLimit, logName: "tapwire-bench-holdouts-report")
            guard child.status == 0 else { throw CLIError("tapwire report of \(app.appName) failed or exceeded the time limit: \(child.output.suffix(500))") }
            child.discardLog()
            whole.append(child)
            say(String(format: "%@: whole process (tapwire report --format json): %.1f ms, peak RSS %.1f MiB", app.appName, child.seconds * 1000,
                       Double(child.peakResidentBytes) / 1_048_576))
        }
        let service = EngagementReportService()
        func report(_ app: ReportBenchCommand.Loaded) throws -> (seconds: Double, report: EngagementReport) {
            let began = monotonicNanoseconds()
            let report = try service.report(appName: app.appName, scope: ReportScope(appId: app.appId, from: start, to: end), on: connection, now: start)
            return (secondsSince(began), report)
        }
        for app in apps { _ = try report(app) } // warm the connection, as an open dashboard would
        var runs: [[Double]] = [[], []]
        var last: EngagementReport?
        for _ in 0..<options.runs {
            for (i, app) in apps.enumerated() {
                let run = try report(app)
                runs[i].append(run.seconds)
                if i == 1 { last = run.report }
            }
        }
        let medians = runs.map { BenchCommand.median($0) }
        for (i, app) in apps.enumerated() {
            say("\(app.appName): in-process runs, ms: " + ReportBenchCommand.list(runs[i]) + String(format: "; median %.1f ms", medians[i] * 1000))
        }
        say(String(format: "with the campaign / engagement only, medians: %.2f (difference %.1f ms)", medians[1] / medians[0],
                   (medians[1] - medians[0]) * 1000))
        if let holdout = last?.holdouts.first {
            let ci = holdout.ci95.map { String(format: "[%+.4f, %+.4f]", $0.lower, $0.upper) } ?? "withheld"
            let anytime = holdout.anytimeValid.map { String(format: "[%+.4f, %+.4f]", $0.ci95.lower, $0.ci95.upper) } ?? "withheld"
            say("the campaign in the report: treated \(holdout.treated.devices) devices, \(holdout.treated.converted) converted; held out "
                + "\(holdout.heldOut.devices), \(holdout.heldOut.converted) converted; difference \(holdout.difference.map { String(format: "%+.4f", $0) } ?? "-") "
                + "95% \(ci), anytime-valid \(anytime), decided on \(holdout.anytimeValid?.decidedOn ?? "-"); split: sequential p "
                + "\(holdout.srm.sequentialPValue.map { String(format: "%.3g", $0) } ?? "-"), mismatch \(holdout.srm.mismatch)")
            if holdout.treated.devices + holdout.heldOut.devices != figure[5] { failures.append("the report's devices differ from the devices posted") }
        } else {
            failures.append("the report shows no holdout")
        }
        print(String(format: "issue 36 target (this run): the holdout report of a campaign of %d assigned devices under 250 ms: median %.1f ms: %@",
                     figure[5], medians[1] * 1000, medians[1] < target ? "met" : "NOT MET"))
        if medians[1] >= target { failures.append("the campaign's report took 250 ms or more") }
        for failure in failures { say("FAIL: " + failure) }
        return failures.isEmpty ? 0 : 1
    }
}
