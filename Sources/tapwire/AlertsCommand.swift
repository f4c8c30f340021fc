import Foundation
import TapwireCommandLine
import TapwireCore
import TapwireReport
import TapwireStore

/// `tapwire alerts`: every family's findings of one app, for cron and CI: the category
/// mismatches over a window and the release-regression check, as of now or of `--at`. Exit code
/// 0 when nothing reaches the chosen severity, 1 when something does, 2 on any error.
enum AlertsCommand {
    static let usage = """
    tapwire alerts --app NAME [--at TIME | --fresh] [--since 24h] [--until TIME] [--format table|json|csv]
                   [--min-severity info|warning|error] [--regression-min-drop 10] [--regression-horizon-days 28]
                   [--database-url URL]
      Checks the app as of --at (default: now), using only events before it: its category
      mismatches over the window (default: the 24 hours before --at, from the start of that
      hour), and the release-regression check (the newest app version against the ones before
      it, looks at whole hours: docs/regressions.md). Prints the findings at or above
      --min-severity (default: warning) and every regression series with its status.
      --at, --since and --until take a duration back from now (30m, 24h, 7d) or an ISO 8601
      time; --until is a synonym of --at; the window is at most 400 days, and --at at most a day
      ahead (the API's rules: one parser). --regression-min-drop is the smallest fall worth a
      finding, in percent of the baseline's rate.
      Without --at, the regression check shows the current hour's look as the collectors took
      and stored it (a few minutes after the hour ended), when one applies to these settings and
      the manifests in force; it does not count events that arrived after it was taken. --fresh
      computes the current look again from the rollups as they are now; --at always computes.
      The output says which look is shown and when it was taken.
      Exit code: 0 nothing to alert on, 1 findings at or above the severity, 2 error.
    """

    static func run(_ args: inout Arguments) throws -> Int32 {
        guard let app = try args.option("app"), !app.isEmpty else {
            throw CLIError("say which app: `tapwire alerts --app NAME` (`tapwire apps list` shows them)")
        }
        var values: [FindingsQuery.Parameter: String] = [:]
        values[.at] = try args.option("at")
        values[.until] = try args.option("until")
        values[.since] = try args.option("since")
        values[.minimumSeverity] = try args.option("min-severity")
        if args.flag("fresh") { values[.fresh] = "true" }
        let query: FindingsQuery
        do {
            query = try FindingsQuery.parse(values, now: .now, conventions: .commandLine)
        } catch {
            throw CLIError(error.message)
        }
        let formatText = try args.option("format") ?? "table"
        guard ["table", "json", "csv"].contains(formatText) else { throw CLIError("--format must be table, json or csv, got \(formatText)") }
        var regression = RegressionConfiguration.default
        if let drop = try args.option("regression-min-drop") { regression.minimumRelativeDrop = try RegressionSettings.minimumDrop(drop, flag: "--regression-min-drop") }
        if let days = try args.option("regression-horizon-days") { regression.horizonDays = try RegressionSettings.horizonDays(days, flag: "--regression-horizon-days") }
        let location = try DatabaseLocation.resolve(&args)
        try args.finish()

        let connection = try location.connect()
        defer { connection.close() }
        try DatabaseLocation.requireCurrentSchema(connection)
        let record = try AppStore().app(named: app, on: connection)
        let report = try FindingsService(regression: regression).report(appId: record.appId, appName: record.name, query: query, on: connection)
            .filtered(minimumSeverity: query.minimumSeverity)
        if let notice = try StandbyStatus.read(on: connection).notice {
            FileHandle.standardError.write(Data("note: \(notice)\n".utf8))
        }
        switch formatText {
        case "json": print(report.json.serialized(pretty: true))
        case "csv": print(report.csv, terminator: "")
        default: print(report.table, terminator: "")
        }
        return report.findings.isEmpty ? 0 : 1
    }
}
