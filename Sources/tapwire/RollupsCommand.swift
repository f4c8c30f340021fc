import Foundation
import TapwireCommandLine
import TapwireCore
import TapwireStore

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
        // With both ends given, ask only whether there is an event: the range's hours read every one.
        let given = try fromText.map { try time($0, "--from", endOfDay: false) }.flatMap { from in
            try toText.map { (from: from, to: try time($0, "--to", endOfDay: true)) }
        }
        let found = try given.map { try store.hasEvents(appId: appId, on: connection) ? $0 : nil } ?? store.eventHours(appId: appId, on: connection)
        guard var range = found else {
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
        let seconds = secondsSince(started)
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
