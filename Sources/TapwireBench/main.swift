import TapwireCommandLine

// `tapwire-bench`: the benchmarks of `make bench`, apart from the shipped `tapwire` binary.
// `ingest` starts the `tapwire` binary as a separate collector process.

let commands: [CommandSpec] = [
    CommandSpec("ingest", "benchmark ingestion end to end against plain COPY", { BenchCommand.usage }, BenchCommand.run),
    CommandSpec("report", "benchmark the 30-day report: rollups vs raw events", { ReportBenchCommand.usage }, ReportBenchCommand.run),
    CommandSpec("holdouts", "benchmark the holdout report of a 10M-device campaign against the engagement-only one", { HoldoutBenchCommand.usage },
                HoldoutBenchCommand.run),
    CommandSpec("mismatches", "benchmark mismatch detection (30 days, 10M events)", { MismatchBenchCommand.usage }, MismatchBenchCommand.run),
    CommandSpec("regressions", "benchmark the hourly release-regression check (14 days, 10M events)", { RegressionBenchCommand.usage },
                RegressionBenchCommand.run),
]

// Line-buffered: a bench runs for minutes, and its output is usually redirected to a log.
CommandLineTool(program: "tapwire-bench", title: "tapwire-bench: the benchmarks of `make bench`", commands: commands,
                lineBufferedOutput: true).main()
