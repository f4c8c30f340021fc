// swift-tools-version:6.0
// Tapwire: notification-engagement telemetry. Every dependency is the toolchain or a Debian C library.
import PackageDescription

let strict: [SwiftSetting] = [.enableUpcomingFeature("ExistentialAny")]

// `make fuzz` sets TAPWIRE_LIBFUZZER=1: the fuzz target and the code it exercises get libFuzzer's
// coverage instrumentation, and tapwire-fuzz links libFuzzer's driver. Per target, because
// `swift build --sanitize=fuzzer` would also turn the SQL embedder plugin's tool into a fuzzer.
let libFuzzer = Context.environment["TAPWIRE_LIBFUZZER"] == "1"
let fuzzed: [SwiftSetting] = libFuzzer ? [.unsafeFlags(["-sanitize=fuzzer"])] : []
let fuzzDriver: [SwiftSetting] = libFuzzer ? [.unsafeFlags(["-sanitize=fuzzer"]), .define("LIBFUZZER")] : []
let fuzzLink: [LinkerSetting] = libFuzzer ? [.unsafeFlags(["-sanitize=fuzzer", "-use-ld=lld"])] : []

let package = Package(
    name: "Tapwire",
    platforms: [.macOS(.v15), .iOS(.v16), .watchOS(.v9), .tvOS(.v16), .visionOS(.v1)],
    products: [
        .library(name: "TapwireClient", targets: ["TapwireClient"]),
        .executable(name: "tapwire", targets: ["tapwire"]),
    ],
    targets: [
        // C libraries from Debian, imported through thin module maps with static inline shims.
        .systemLibrary(name: "CLibPQ", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"]), .brew(["zlib"])]),
        .systemLibrary(name: "CMicroHTTPD", pkgConfig: "libmicrohttpd", providers: [.apt(["libmicrohttpd-dev"])]),
        // glibc's allocator settings (<malloc.h>): the collector's arenas, set once at start.
        .systemLibrary(name: "CMalloc"),
        // The C library's standard output: a command line tool's buffering, set once at start.
        .systemLibrary(name: "CStdio"),

        // Embeds SQL files into the binary, so it runs outside the checkout: sql/migrations, fresh and
        // queries into TapwireStore; sql/bench into tapwire-bench; sql/soak into tapwire-soak and the tests.
        .executableTarget(name: "TapwireSQLEmbedder", path: "Sources/TapwireSQLEmbedder"),
        .plugin(name: "EmbedSQL", capability: .buildTool(), dependencies: ["TapwireSQLEmbedder"]),

        // The wire format the SDK and the collector share: event ids (UUIDv7), ISO 8601 timestamps, JSON
        // values and their writer, the manifest's canonical form and hash. Standard library only.
        .target(name: "TapwireWire", swiftSettings: strict + fuzzed),
        // The one zlib wrapper (every zlib call): compression, bounded one-shot and streaming inflate, CRC-32.
        .target(name: "TapwireZlib", dependencies: ["CZlib"], swiftSettings: strict + fuzzed),
        // The statistics: interval estimates, stratified and anytime-valid differences, histograms'
        // percentiles, and the seeded generator simulations draw from. Foundation only.
        .target(name: "TapwireStatistics", swiftSettings: strict + fuzzed),
        .target(name: "TapwireCore", dependencies: ["TapwireWire", "TapwireStatistics"], swiftSettings: strict + fuzzed),
        // One lifecycle: the long-lived parts as services, started in order by one group and drained in
        // reverse; the background threads they run on.
        .target(name: "TapwireLifecycle", dependencies: ["TapwireCore"], swiftSettings: strict),
        .target(name: "TapwireStore", dependencies: ["TapwireCore", "TapwireLifecycle", "CLibPQ"],
                swiftSettings: strict, plugins: ["EmbedSQL"]),
        .target(name: "TapwireServer", dependencies: ["TapwireCore", "TapwireLifecycle", "TapwireStore", "TapwireReport", "CMicroHTTPD", "TapwireZlib", "CMalloc"],
                swiftSettings: strict + fuzzed),
        .target(name: "TapwireReport", dependencies: ["TapwireCore", "TapwireStatistics", "TapwireStore"], swiftSettings: strict),
        // The SDK apps embed: Foundation, the wire format and zlib only, never a server module.
        .target(name: "TapwireClient", dependencies: ["TapwireWire", "TapwireZlib"], swiftSettings: strict),
        .executableTarget(name: "tapwire-client-harness", dependencies: ["TapwireClient"], path: "Sources/TapwireClientHarness", swiftSettings: strict),
        // The body decoder's fuzz target: a seeded mutator, or libFuzzer with --sanitize=fuzzer (make fuzz).
        .target(name: "TapwireFuzz", dependencies: ["TapwireCore", "TapwireStatistics", "TapwireServer", "TapwireZlib"], swiftSettings: strict + fuzzed),
        .executableTarget(name: "tapwire-fuzz", dependencies: ["TapwireFuzz"], path: "Sources/TapwireFuzzer",
                          swiftSettings: strict + fuzzDriver, linkerSettings: fuzzLink),
        // The one plain HTTP/1.1 client of the tools (bench, soak, demo, tests): exact bytes over loopback TCP.
        .target(name: "TapwireLoopbackClient", dependencies: ["TapwireCore"], swiftSettings: strict),
        // The soak's pure parts, unit-tested: its options, the fault schedule, the verdict over the gathered facts.
        .target(name: "TapwireSoakCore", dependencies: ["TapwireCore"], swiftSettings: strict),
        // The rollups recomputed in SQL (sql/fresh/): the tests' and the soak's oracle, not the product's.
        .target(name: "TapwireRollupOracle", dependencies: ["TapwireCore", "TapwireStore"], swiftSettings: strict, plugins: ["EmbedSQL"]),
        // make soak: the collector, client processes and faults on a schedule; checks nothing acknowledged is lost.
        .executableTarget(name: "tapwire-soak", dependencies: ["TapwireSoakCore", "TapwireStore", "TapwireLoopbackClient", "TapwireRollupOracle"], path: "Sources/TapwireSoak",
                          swiftSettings: strict, plugins: ["EmbedSQL"]),
        // Argument reading, subcommand dispatch and the database location, for tapwire and tapwire-bench.
        .target(name: "TapwireCommandLine", dependencies: ["TapwireCore", "TapwireStore", "CStdio"], swiftSettings: strict),
        // tapwire demo: simulated devices and their batches, reproducible from a seed (tooling, not the report).
        .target(name: "TapwireDemo", dependencies: ["TapwireCore", "TapwireStatistics"], swiftSettings: strict),
        .executableTarget(name: "tapwire",
                          dependencies: ["TapwireCore", "TapwireStore", "TapwireServer", "TapwireReport", "TapwireCommandLine",
                                         "TapwireLoopbackClient", "TapwireDemo"],
                          swiftSettings: strict),
        // The benchmarks' workloads: each shape's parameters and the one seeded generator of their events.
        .target(name: "TapwireBenchCore", dependencies: ["TapwireCore", "TapwireStatistics"], swiftSettings: strict),
        // make bench: ingestion (against a `tapwire serve` child process), report and mismatch benchmarks.
        .executableTarget(name: "tapwire-bench",
                          dependencies: ["TapwireCore", "TapwireStatistics", "TapwireBenchCore", "TapwireStore", "TapwireServer", "TapwireReport", "TapwireCommandLine",
                                         "TapwireLoopbackClient"],
                          path: "Sources/TapwireBench", swiftSettings: strict, plugins: ["EmbedSQL"]),

        // Shared helpers for tests: a private PostgreSQL per suite, requests over the loopback client, the soak's faults (SoakSQL).
        .target(name: "TapwireTestSupport", dependencies: ["TapwireCore", "TapwireStatistics", "TapwireLifecycle", "TapwireStore", "TapwireServer", "TapwireReport", "TapwireLoopbackClient", "TapwireZlib", "TapwireRollupOracle", "TapwireDemo"],
                path: "Tests/TapwireTestSupport", swiftSettings: strict, plugins: ["EmbedSQL"]),
        // The independent recomputations of the statistics (Tests/Statistics/*.py), run from the tests.
        .target(name: "TapwireStatisticsOracle", path: "Tests/StatisticsOracle", swiftSettings: strict),
        .testTarget(name: "TapwireWireTests", dependencies: ["TapwireWire"], swiftSettings: strict),
        .testTarget(name: "TapwireZlibTests", dependencies: ["TapwireZlib"], swiftSettings: strict),
        .testTarget(name: "TapwireStatisticsTests", dependencies: ["TapwireStatistics", "TapwireStatisticsOracle"], swiftSettings: strict),
        .testTarget(name: "TapwireCoreTests", dependencies: ["TapwireCore", "TapwireStatistics", "TapwireStatisticsOracle"], swiftSettings: strict),
        .testTarget(name: "TapwireLifecycleTests", dependencies: ["TapwireLifecycle"], swiftSettings: strict),
        .testTarget(name: "TapwireStoreTests", dependencies: ["TapwireStore", "TapwireStatistics", "TapwireTestSupport", "TapwireRollupOracle"], swiftSettings: strict),
        .testTarget(name: "TapwireServerTests", dependencies: ["TapwireServer", "TapwireLifecycle", "TapwireStatistics", "TapwireLoopbackClient", "TapwireZlib", "TapwireTestSupport"], swiftSettings: strict),
        .testTarget(name: "TapwireReportTests", dependencies: ["TapwireReport", "TapwireStatistics", "TapwireTestSupport", "TapwireRollupOracle", "TapwireStatisticsOracle"], swiftSettings: strict),
        .testTarget(name: "TapwireDemoTests", dependencies: ["TapwireDemo", "TapwireReport", "TapwireTestSupport"], swiftSettings: strict),
        .testTarget(name: "TapwireSoakCoreTests", dependencies: ["TapwireSoakCore"], swiftSettings: strict),
        .testTarget(name: "TapwireBenchCoreTests", dependencies: ["TapwireBenchCore"], swiftSettings: strict),
        .testTarget(name: "TapwireLoopbackClientTests", dependencies: ["TapwireLoopbackClient", "TapwireStore", "TapwireTestSupport"], swiftSettings: strict),
        .testTarget(name: "TapwireClientTests", dependencies: ["TapwireClient", "TapwireZlib", "TapwireTestSupport"], swiftSettings: strict),
        .testTarget(name: "ReliabilityTests", dependencies: ["TapwireFuzz", "TapwireServer", "TapwireLoopbackClient", "TapwireZlib", "TapwireTestSupport"],
                    swiftSettings: strict),
        .testTarget(name: "CitusTests", dependencies: ["TapwireServer", "TapwireReport", "TapwireDemo", "TapwireLoopbackClient", "TapwireTestSupport"],
                    swiftSettings: strict),
        .testTarget(name: "MixedFleetTests", dependencies: ["TapwireStore", "TapwireTestSupport"], swiftSettings: strict),
        .testTarget(name: "EndToEndTests", dependencies: ["TapwireTestSupport", "TapwireRollupOracle"], swiftSettings: strict),
        // Attribution against Tests/Statistics/attribution.py, the simulation's truth and other posting orders; the intervals' coverage.
        .testTarget(name: "OutcomesTests", dependencies: ["TapwireCore", "TapwireDemo", "TapwireStatistics", "TapwireStore", "TapwireTestSupport",
                                                          "TapwireStatisticsOracle"], swiftSettings: strict),
    ],
    swiftLanguageModes: [.v6]
)
