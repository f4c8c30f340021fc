import Foundation
import TapwireCommandLine
import TapwireCore
import TapwireStore

/// `tapwire-bench mismatches`: mismatch detection over 30 days of 10M events (rollups vs a raw
/// scan of the same events), and what the rollup statement costs group commit. Part of `make bench`.
enum MismatchBenchCommand {
    static let usage = """
    tapwire-bench mismatches [--events 10000000] [--days 30] [--format text|json] [--database-url URL]
      Loads synthetic events into the database (use a scratch one: it adds an app and its
      events), then times detection from the rollups against the same detection from the raw
      events, and group commit with and without the mismatch rollup statement.
    """

    static func run(_ args: inout Arguments) throws -> Int32 {
        var options = MismatchBenchmark.Options()
        if let events = try args.int("events") {
            guard events >= 1000 else { throw CLIError("--events must be at least 1000") }
            options.events = events
        }
        if let days = try args.int("days") {
            guard (2...365).contains(days) else { throw CLIError("--days must be from 2 to 365") }
            options.days = days
        }
        let json = (try args.option("format") ?? "text") == "json"
        let location = try DatabaseLocation.resolve(&args)
        try args.finish()
        let result = try MismatchBenchmark(options: options).run(url: location.url) { line in
            FileHandle.standardError.write(Data(("bench-mismatches: " + line + "\n").utf8))
        }
        if json {
            print(result.json.serialized(pretty: true))
        } else {
            func f(_ v: Double) -> String { String(format: "%.1f", v) }
            print("""
            mismatch detection, \(result.events) events over \(result.days) days (\(result.dailyRows) daily + \(result.hourlyRows) hourly rollup rows, \(result.findings) findings)
              30-day window from rollups:     \(f(result.detection30dMs)) ms (median)
              24-hour window from rollups:    \(f(result.detection24hMs)) ms
              baseline, raw-event scan, 30d:  \(f(result.rawScan30dMs)) ms  -> rollups are \(f(result.rawScan30dMs / result.detection30dMs))x faster
            """)
        }
        return 0
    }
}
