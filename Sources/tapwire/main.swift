import TapwireCommandLine

// `tapwire`: the collector and its commands (one list, Commands.swift). Each subcommand lives
// in its own file; the benchmarks are a separate executable, `tapwire-bench` (Sources/TapwireBench).

CommandLineTool(program: "tapwire", title: "tapwire: notification engagement telemetry", commands: Commands.all).main()
