import Foundation
import TapwireCommandLine
import TapwireCore
import TapwireStore

enum RetentionCommand {
    static let usage = """
    tapwire retention --keep 400d [--dry-run] [--batch-size N] [--format text|json] [--database-url URL]
      Drops the daily partitions of events that end more than --keep ago, and deletes the dedup
      ids of events too old to be accepted again. The rollups are kept: reports over any range
      read them, and reports over the kept range are unchanged.
      Safe from cron: one run at a time (a second one exits 0 and does nothing), each step is
      idempotent, and a run that was interrupted is finished by the next. Partitions are
      detached CONCURRENTLY, so collectors keep writing.
      --keep D        how much raw data to keep: 400d or more (the collector accepts events up
                      to 400 days old, and their partitions and dedup ids must stay)
      --dry-run       print what would be dropped and deleted; change nothing
      --batch-size N  dedup ids deleted per transaction (default 10000)
    Example crontab line (daily, 03:17 UTC):
      17 3 * * * TAPWIRE_DATABASE_URL=postgresql://… tapwire retention --keep 400d
    """

    static func run(_ args: inout Arguments) throws -> Int32 {
        guard let keepText = try args.option("keep") else { throw CLIError("say how much to keep: `tapwire retention --keep 400d`") }
        guard let keep = DurationText.seconds(keepText), keep > 0 else {
            throw CLIError("--keep takes a duration such as 400d or 60w, got \(keepText)")
        }
        let dryRun = args.flag("dry-run")
        let batchSize = try args.int("batch-size") ?? 10_000
        let format = try OutputFormat.parse(try args.option("format"))
        let location = try DatabaseLocation.resolve(&args)
        try args.finish()
        let policy: RetentionPolicy
        do {
            policy = try RetentionPolicy(keepSeconds: keep, batchSize: batchSize)
        } catch {
            throw CLIError(error.description)
        }
        let connection = try location.connect()
        defer { connection.close() }
        try DatabaseLocation.requireCurrentSchema(connection)
        let outcome = try RetentionStore().run(policy, dryRun: dryRun, on: connection)
        switch format {
        case .json: print(json(outcome).serialized())
        case .text: print(text(outcome, keep: keepText))
        }
        return 0
    }

    static func json(_ outcome: RetentionOutcome) -> JSONValue {
        .object([
            ("dryRun", .bool(outcome.dryRun)), ("ran", .bool(outcome.ran)),
            ("partitionCutoff", .string(outcome.partitionCutoff.description)), ("idCutoff", .string(outcome.idCutoff.description)),
            ("partitions", .array(outcome.partitions.map { p in
                .object([("name", .string(p.name)), ("from", .string(p.rangeStart.description)), ("to", .string(p.rangeEnd.description)),
                         ("estimatedRows", p.estimatedRows.map { .int($0) } ?? .null)])
            })),
            ("resumed", .array(outcome.resumed.map { .string($0) })),
            ("eventIdsDeleted", .int(outcome.eventIdsDeleted)),
            ("conversionCreditsDeleted", .int(outcome.conversionCreditsDeleted)),
            ("notificationConversionsDeleted", .int(outcome.notificationConversionsDeleted)),
            ("attributionDevicesDeleted", .int(outcome.attributionDevicesDeleted)),
            ("holdoutAssignmentsDeleted", .int(outcome.holdoutAssignmentsDeleted)),
        ])
    }

    static func text(_ outcome: RetentionOutcome, keep: String) -> String {
        guard outcome.ran else {
            return "another `tapwire retention` is running on this database (advisory lock 7358030): nothing done"
        }
        let verb = outcome.dryRun ? "would drop" : "dropped"
        var lines: [String] = []
        let names = outcome.partitions.map(\.name)
        let estimates = outcome.partitions.compactMap(\.estimatedRows)
        let rows = estimates.count == names.count ? "about \(estimates.reduce(0, +)) rows" : "row count not estimated yet"
        if names.isEmpty {
            lines.append("no partition of events ends before \(outcome.partitionCutoff.iso8601(fractionDigits: 0)) (keep \(keep)): nothing to drop")
        } else {
            let span = names.count == 1 ? names[0] : "\(names[0]) … \(names[names.count - 1])"
            lines.append("\(verb) \(names.count) partition(s) of events (\(span), \(rows)), all before \(outcome.partitionCutoff.iso8601(fractionDigits: 0))")
        }
        if !outcome.resumed.isEmpty {
            lines.append((outcome.dryRun ? "would finish" : "finished") + " dropping \(outcome.resumed.joined(separator: ", ")), left by an interrupted run")
        }
        lines.append((outcome.dryRun ? "would delete" : "deleted") + " \(outcome.eventIdsDeleted) dedup id(s) received before \(outcome.idCutoff.iso8601(fractionDigits: 0))")
        if outcome.conversionCreditsDeleted > 0 || outcome.notificationConversionsDeleted > 0 {
            lines.append((outcome.dryRun ? "would delete" : "deleted") + " \(outcome.conversionCreditsDeleted) conversion credit(s) and "
                         + "\(outcome.notificationConversionsDeleted) notification conversion row(s) before \(outcome.partitionCutoff.iso8601(fractionDigits: 0))")
        }
        if outcome.attributionDevicesDeleted > 0 || outcome.holdoutAssignmentsDeleted > 0 {
            lines.append((outcome.dryRun ? "would forget" : "forgot") + " the install ids of \(outcome.attributionDevicesDeleted) device(s) with no "
                         + "conversion left and of \(outcome.holdoutAssignmentsDeleted) holdout assignment(s) whose window closed before the horizon")
        }
        lines.append("rollups kept: reports over any range still read them")
        return lines.joined(separator: "\n")
    }
}
