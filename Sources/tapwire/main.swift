import TapwireCommandLine

// `tapwire`: the collector and its commands. Each subcommand lives in its own file; the
// benchmarks are a separate executable, `tapwire-bench` (Sources/TapwireBench).

let commands: [CommandSpec] = [
    CommandSpec("serve", "run the collector", { ServeCommand.usage }, ServeCommand.run),
    CommandSpec("migrate", "apply schema migrations", { MigrateCommand.usage }, MigrateCommand.run),
    CommandSpec("apps", "create and list apps", { AppsCommand.usage }, AppsCommand.run),
    CommandSpec("keys", "rotate an app's keys", { KeysCommand.usage }, KeysCommand.run),
] + ExtensionCommands.all

CommandLineTool(program: "tapwire", title: "tapwire: notification engagement telemetry", commands: commands).main()
