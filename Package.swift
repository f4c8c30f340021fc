// swift-tools-version:6.0
// Tapwire: notification-engagement telemetry. Every dependency is the toolchain or a Debian C library.
import PackageDescription

let strict: [SwiftSetting] = [.enableUpcomingFeature("ExistentialAny")]

let package = Package(
    name: "Tapwire",
    platforms: [.macOS(.v15), .iOS(.v16), .watchOS(.v9)],
    products: [
        .library(name: "TapwireClient", targets: ["TapwireClient"]),
        .executable(name: "tapwire", targets: ["tapwire"]),
    ],
    targets: [
        // C libraries from Debian, imported through thin module maps with static inline shims.
        .systemLibrary(name: "CLibPQ", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"]), .brew(["zlib"])]),
        .systemLibrary(name: "CMicroHTTPD", pkgConfig: "libmicrohttpd", providers: [.apt(["libmicrohttpd-dev"])]),

        // Embeds every file under sql/ into the binary, so it runs outside the checkout.
        .executableTarget(name: "TapwireSQLEmbedder", path: "Sources/TapwireSQLEmbedder"),
        .plugin(name: "EmbedSQL", capability: .buildTool(), dependencies: ["TapwireSQLEmbedder"]),

        .target(name: "TapwireCore", swiftSettings: strict),
        .target(name: "TapwireStore", dependencies: ["TapwireCore", "CLibPQ"],
                swiftSettings: strict, plugins: ["EmbedSQL"]),
        .target(name: "TapwireServer", dependencies: ["TapwireCore", "TapwireStore", "TapwireReport", "CMicroHTTPD", "CZlib"],
                swiftSettings: strict),
        .target(name: "TapwireReport", dependencies: ["TapwireCore", "TapwireStore"], swiftSettings: strict),
        // The SDK apps embed: Foundation and zlib only, never a server module.
        .target(name: "TapwireClient", dependencies: ["CZlib"], swiftSettings: strict),
        .executableTarget(name: "tapwire-client-harness", dependencies: ["TapwireClient"], path: "Sources/TapwireClientHarness", swiftSettings: strict),
        .executableTarget(name: "tapwire",
                          dependencies: ["TapwireCore", "TapwireStore", "TapwireServer", "TapwireReport", "TapwireClient"],
                          swiftSettings: strict),

        // Shared helpers for tests: a private PostgreSQL per suite, a raw loopback HTTP client.
        .target(name: "TapwireTestSupport", dependencies: ["TapwireCore", "TapwireStore", "TapwireServer"],
                path: "Tests/TapwireTestSupport", swiftSettings: strict),
        .testTarget(name: "TapwireCoreTests", dependencies: ["TapwireCore"], swiftSettings: strict),
        .testTarget(name: "TapwireStoreTests", dependencies: ["TapwireStore", "TapwireTestSupport"], swiftSettings: strict),
        .testTarget(name: "TapwireServerTests", dependencies: ["TapwireServer", "TapwireTestSupport"], swiftSettings: strict),
        .testTarget(name: "TapwireReportTests", dependencies: ["TapwireReport", "TapwireTestSupport"], swiftSettings: strict),
        .testTarget(name: "TapwireClientTests", dependencies: ["TapwireClient", "TapwireTestSupport"], swiftSettings: strict),
        .testTarget(name: "EndToEndTests", dependencies: ["TapwireTestSupport"], swiftSettings: strict),
    ],
    swiftLanguageModes: [.v6]
)
