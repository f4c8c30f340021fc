import TapwireCommandLine

// Subcommands added by feature areas (reports, mismatches, deployment, reliability) register
// here, one line each, so main.swift stays the same.
enum ExtensionCommands {
    static let all: [CommandSpec] = [
        CommandSpec("report", "the engagement report (table, JSON, CSV, Markdown, HTML)", { ReportCommand.usage }, ReportCommand.run),
        CommandSpec("rollups", "rebuild the report rollups from raw events", { RollupsCommand.usage }, RollupsCommand.run),
        CommandSpec("demo", "simulate devices posting telemetry, then print the report", { DemoCommand.usage }, DemoCommand.run),
        CommandSpec("alerts", "check an app's category mismatches (exit 1 when any)", { AlertsCommand.usage }, AlertsCommand.run),
        CommandSpec("retention", "drop old event partitions, keep the rollups (cron-safe)", { RetentionCommand.usage }, RetentionCommand.run),
    ]
}
