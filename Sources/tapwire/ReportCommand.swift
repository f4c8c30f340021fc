import Foundation
import TapwireCommandLine
import TapwireCore
import TapwireReport
import TapwireStatistics
import TapwireStore

enum ReportCommand {
    static let usage = """
    tapwire report --app NAME [options] [--database-url URL]
      The engagement report: per category, rich vs text-only with 95% intervals, daily series.
      --from DATE|TIME   start, inclusive: 2026-12-01 (local midnight in --tz) or 2026-12-01T10:00:00Z
      --to DATE|TIME     end: a date includes that whole day; a timestamp is exclusive. Default: now
      --since 7d|12h     the last N days (today included) or hours, instead of --from
                         (default: the last 30 days)
      --tz ZONE          IANA time zone of the days (default UTC), e.g. Europe/Bucharest
      --version V --platform P --campaign C --variant V
                         filters ('' matches events without a campaign or variant)
      --by DIM           also break the report down by version, platform, campaign or variant
      --min-sample N     delivered per side below which rich vs text-only is "insufficient data"
                         (default \(MinimumSample.default.perSide))
      --target-difference PP
                         the rich vs text-only difference, in percentage points, whose days to
                         detect the report gives (default: the adjusted difference observed, or 2
                         when it is not significant)
      --format F         table (default), json, csv, md, html
      --out FILE         write to FILE instead of standard output
      --from-raw         compute from raw events instead of the rollups (slow; for checking)
    """

    static func run(_ args: inout Arguments) throws -> Int32 {
        guard let app = try args.option("app") else { throw CLIError("say which app: `tapwire report --app NAME` (`tapwire apps list` shows them)") }
        let formatName = try args.option("format") ?? "table"
        guard let format = ReportOutputFormat(name: formatName) else {
            throw CLIError("--format must be table, json, csv, md or html, got \(formatName)")
        }
        let out = try args.option("out")
        let raw = args.flag("from-raw")
        var options: [(String, String)] = []
        for name in ReportRequest.optionNames {
            if let value = try args.option(name) { options.append((name, value)) }
        }
        let location = try DatabaseLocation.resolve(&args)
        try args.finish()
        var request: ReportRequest
        do {
            request = try ReportRequest(options: options)
        } catch {
            throw CLIError("--" + error.message)
        }
        if raw { request.source = .rawEvents }
        let connection = try location.connect()
        defer { connection.close() }
        try DatabaseLocation.requireCurrentSchema(connection)
        let record = try AppStore().app(named: app, on: connection)
        let report: EngagementReport
        do {
            report = try EngagementReportService().report(appId: record.appId, appName: record.name, request: request, on: connection)
        } catch {
            switch error {
            case .invalid(let invalid): throw CLIError(invalid.message)
            case .database(let database): throw database
            }
        }
        let findings = format.showsFindings
            ? try EngagementReportService().findings(for: report, appId: record.appId, on: connection) : nil
        let text = format.render(report, findings: findings)
        // On a hot standby well behind its primary, the figures miss what it has not replayed.
        if let notice = try StandbyStatus.read(on: connection).notice {
            FileHandle.standardError.write(Data("note: \(notice)\n".utf8))
        }
        if let out {
            do {
                try text.write(toFile: out, atomically: true, encoding: .utf8)
            } catch {
                throw CLIError("cannot write \(out): \(error.localizedDescription)")
            }
            FileHandle.standardError.write(Data("wrote \(format.rawValue) report to \(out)\n".utf8))
        } else {
            FileHandle.standardOutput.write(Data(text.utf8))
        }
        return 0
    }
}

enum RollupsCommand {
    static let usage = """
    tapwire rollups rebuild [--app NAME] [--from DATE|TIME --to DATE|TIME] [--database-url URL]
      Recomputes the report rollups from the raw events, one UTC day per transaction (group
      commits wait for the day being rebuilt; reports keep working), widened to whole UTC days.
      Without --from/--to it rebuilds every day that holds events. --to DATE includes that day.
    """

    static func run(_ args: inout Arguments) throws -> Int32 {
        guard args.positional() == "rebuild" else { throw CLIError("say what to do: `tapwire rollups rebuild [--app NAME]`") }
        let appName = try args.option("app")
        let fromText = try args.option("from")
        let toText = try args.option("to")
        let location = try DatabaseLocation.resolve(&args)
        try args.finish()
        let connection = try location.connect()
        defer { connection.close() }
        try DatabaseLocation.requireCurrentSchema(connection)
        let appId = try appName.map { try AppStore().app(named: $0, on: connection).appId }
        let store = RollupStore()
        guard var range = try store.eventHours(appId: appId, on: connection) else {
            print("no events\(appName.map { " for \($0)" } ?? ""): nothing to rebuild")
            return 0
        }
        if let fromText { range.from = try time(fromText, "--from", endOfDay: false) }
        if let toText { range.to = try time(toText, "--to", endOfDay: true) }
        guard range.from < range.to else { throw CLIError("--from must be before --to") }
        let started = monotonicNanoseconds()
        let steps = try store.rebuild(appId: appId, from: range.from, to: range.to, on: connection) { step in
            FileHandle.standardError.write(Data("rebuilt \(step.from.iso8601(fractionDigits: 0)) to \(step.to.iso8601(fractionDigits: 0))\n".utf8))
        }
        let seconds = Double(monotonicNanoseconds() - started) / 1e9
        print("rebuilt rollups of \(appName ?? "every app") from \(range.from.iso8601(fractionDigits: 0)) to \(range.to.iso8601(fractionDigits: 0)): \(steps.count) day(s) in \(String(format: "%.1f", seconds)) s")
        return 0
    }

    static func time(_ text: String, _ flag: String, endOfDay: Bool) throws -> Timestamp {
        guard let value = Timestamp(iso8601: text) else {
            throw CLIError("\(flag) must be an ISO 8601 date or timestamp, such as 2026-12-01 or 2026-12-01T10:00:00Z")
        }
        let isDate = text.utf8.count == 10
        return isDate && endOfDay ? value.adding(microseconds: 86_400_000_000) : value
    }
}
