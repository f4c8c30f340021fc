import Foundation
import TapwireCommandLine
import TapwireCore
import TapwireReport
import TapwireStore

/// `tapwire alerts`: the mismatch findings of one app, for cron and CI. Exit code 0 when nothing
/// reaches the chosen severity, 1 when something does, 2 on any error.
enum AlertsCommand {
    static let usage = """
    tapwire alerts --app NAME [--since 24h] [--until TIME] [--format table|json]
                   [--min-severity info|warning|error] [--database-url URL]
      Checks the app's category mismatches over the window (default: the last 24 hours, from
      the start of that hour) and prints those at or above --min-severity (default: warning).
      --since and --until take a duration back from now (30m, 24h, 7d) or an ISO 8601 time.
      Exit code: 0 nothing to alert on, 1 findings at or above the severity, 2 error.
    """

    static func run(_ args: inout Arguments) throws -> Int32 {
        guard let app = try args.option("app"), !app.isEmpty else {
            throw CLIError("say which app: `tapwire alerts --app NAME` (`tapwire apps list` shows them)")
        }
        let now = Timestamp.now
        let until = try time(try args.option("until"), flag: "--until", now: now) ?? now
        let since = try time(try args.option("since"), flag: "--since", now: now) ?? until.adding(seconds: -86_400)
        guard since < until else { throw CLIError("--since must be before --until") }
        let formatText = try args.option("format") ?? "table"
        guard formatText == "table" || formatText == "json" else { throw CLIError("--format must be table or json, got \(formatText)") }
        let severityText = try args.option("min-severity") ?? "warning"
        guard let severity = MismatchSeverity(name: severityText) else {
            throw CLIError("--min-severity must be info, warning or error, got \(severityText)")
        }
        let location = try DatabaseLocation.resolve(&args)
        try args.finish()

        let connection = try location.connect()
        defer { connection.close() }
        try DatabaseLocation.requireCurrentSchema(connection)
        let record = try AppStore().app(named: app, on: connection)
        let report = try MismatchStore().report(appId: record.appId, appName: record.name, since: since, until: until, on: connection)
            .filtered(minimumSeverity: severity)
        if let notice = try StandbyStatus.read(on: connection).notice {
            FileHandle.standardError.write(Data("note: \(notice)\n".utf8))
        }
        if formatText == "json" {
            print(report.json.serialized(pretty: true))
        } else {
            print(report.table, terminator: "")
        }
        return report.findings.isEmpty ? 0 : 1
    }

    static func time(_ text: String?, flag: String, now: Timestamp) throws(CLIError) -> Timestamp? {
        guard let text else { return nil }
        if let seconds = DurationText.seconds(text), text.last.map({ !$0.isNumber }) ?? false {
            return now.adding(seconds: -Double(seconds))
        }
        if let t = Timestamp(iso8601: text) { return t }
        throw CLIError("\(flag) must be a duration back from now (30m, 24h, 7d) or an ISO 8601 time, got \(text)")
    }
}
