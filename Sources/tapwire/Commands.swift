import TapwireCommandLine

/// Every subcommand of `tapwire`, in one list, in the order `tapwire --help` shows them. A
/// feature area adds its subcommand here, one line; main.swift only looks commands up. The
/// benchmarks are a separate executable, `tapwire-bench`.
enum Commands {
    static let all: [CommandSpec] = [
        CommandSpec("serve", "run the collector", { ServeCommand.usage }, ServeCommand.run),
        CommandSpec("migrate", "apply schema migrations", { MigrateCommand.usage }, MigrateCommand.run),
        CommandSpec("apps", "create and list apps, set their attribution windows", { AppsCommand.usage }, AppsCommand.run),
        CommandSpec("keys", "rotate an app's keys", { KeysCommand.usage }, KeysCommand.run),
        CommandSpec("devices", "forget an install id's data", { DevicesCommand.usage }, DevicesCommand.run),
        CommandSpec("report", "the engagement report (table, JSON, CSV, Markdown, HTML)", { ReportCommand.usage }, ReportCommand.run),
        CommandSpec("rollups", "rebuild the report rollups from raw events", { RollupsCommand.usage }, RollupsCommand.run),
        CommandSpec("demo", "simulate devices posting telemetry, then print the report", { DemoCommand.usage }, DemoCommand.run),
        CommandSpec("alerts", "check an app's category mismatches (exit 1 when any)", { AlertsCommand.usage }, AlertsCommand.run),
        CommandSpec("retention", "drop old event partitions, keep the rollups (cron-safe)", { RetentionCommand.usage }, RetentionCommand.run),
    ]
}
