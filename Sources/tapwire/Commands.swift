/// Every subcommand of `tapwire`, in one list, in the order `tapwire --help` shows them. A
/// feature area adds its subcommand here, one line; main.swift only looks commands up.
enum Commands {
    static let all: [CommandSpec] = [
        CommandSpec("serve", "run the collector", { ServeCommand.usage }, ServeCommand.run),
        CommandSpec("migrate", "apply schema migrations", { MigrateCommand.usage }, MigrateCommand.run),
        CommandSpec("apps", "create and list apps", { AppsCommand.usage }, AppsCommand.run),
        CommandSpec("keys", "rotate an app's keys", { KeysCommand.usage }, KeysCommand.run),
        CommandSpec("bench", "benchmark ingestion end to end against plain COPY", { BenchCommand.usage }, BenchCommand.run),
        CommandSpec("report", "the engagement report (table, JSON, CSV, Markdown, HTML)", { ReportCommand.usage }, ReportCommand.run),
        CommandSpec("rollups", "rebuild the report rollups from raw events", { RollupsCommand.usage }, RollupsCommand.run),
        CommandSpec("bench-report", "benchmark the 30-day report: rollups vs raw events", { ReportBenchCommand.usage }, ReportBenchCommand.run),
        CommandSpec("demo", "simulate devices posting telemetry, then print the report", { DemoCommand.usage }, DemoCommand.run),
        CommandSpec("alerts", "check an app's category mismatches (exit 1 when any)", { AlertsCommand.usage }, AlertsCommand.run),
        CommandSpec("bench-mismatches", "benchmark mismatch detection (30 days, 10M events)", { MismatchBenchCommand.usage }, MismatchBenchCommand.run),
        CommandSpec("retention", "drop old event partitions, keep the rollups (cron-safe)", { RetentionCommand.usage }, RetentionCommand.run),
    ]
}

/// A subcommand: its name, a one-line summary, its usage text and what it runs.
struct CommandSpec: Sendable {
    var name: String
    var summary: String
    var usage: @Sendable () -> String
    var run: @Sendable (inout Arguments) throws -> Int32

    init(_ name: String, _ summary: String, _ usage: @escaping @Sendable () -> String,
         _ run: @escaping @Sendable (inout Arguments) throws -> Int32) {
        self.name = name
        self.summary = summary
        self.usage = usage
        self.run = run
    }
}
