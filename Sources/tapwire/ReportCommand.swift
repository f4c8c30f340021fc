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
    \(ReportDimension.allCases.map { "  --\($0.flag) VALUE".padding(toLength: 25, withPad: " ", startingAt: 0) + $0.help }.joined(separator: "\n"))
                         filters read the events of the range: exact, slower than an unfiltered report
      --by DIM           also break the report down by \(ReportDimension.allCases.map(\.flag).joined(separator: ", "))
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
            try OutputFile.write(text, to: out)
            FileHandle.standardError.write(Data("wrote \(format.rawValue) report to \(out)\n".utf8))
        } else {
            FileHandle.standardOutput.write(Data(text.utf8))
        }
        return 0
    }
}
