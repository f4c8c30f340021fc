import TapwireBenchCore
import TapwireCommandLine

/// `--shape` and `--seed`, read the same way by `tapwire-bench ingest` and `report`.
struct WorkloadOptions {
    var shapes: [WorkloadShape.Name]
    var seed: UInt64

    init(_ args: inout Arguments) throws {
        switch WorkloadShape.Name.list(try args.option("shape") ?? "benchmark") {
        case .success(let names): shapes = names
        case .failure(let error): throw CLIError(error.description)
        }
        let seedValue = try args.int("seed") ?? 42
        guard seedValue >= 0 else { throw CLIError("--seed must be 0 or more, got \(seedValue)") }
        seed = UInt64(seedValue)
    }
}
