import Foundation
import TapwireCore
import TapwireServer
import TapwireStore

/// A collector running in this process on a free loopback port, against a test database.
public final class TestCollector: Sendable {
    public let collector: Collector
    public let database: TestDatabase
    public let logs: LogSink

    public init(database: TestDatabase, configure: (inout CollectorConfiguration) -> Void = { _ in }) throws {
        var configuration = CollectorConfiguration(databaseURL: database.url)
        configuration.http.port = 0
        configuration.http.host = "127.0.0.1"
        configuration.readerThreads = 2
        configuration.limits.maxEventAgeMicroseconds = FixtureDates.ageLimit(now: .now)
        configure(&configuration)
        let logs = LogSink.memory()
        collector = Collector(configuration: configuration, logger: Logger(label: "test", minimumLevel: .debug, sink: logs))
        self.database = database
        self.logs = logs
        try collector.start()
    }

    /// A collector on a brand-new database.
    public static func start(configure: (inout CollectorConfiguration) -> Void = { _ in }) throws -> TestCollector {
        try TestCollector(database: try TestDatabase.create(), configure: configure)
    }

    public var port: Int { collector.port }
    public var metrics: MetricsRegistry { collector.metrics }

    public func client() -> HTTPTestClient { HTTPTestClient(port: port) }

    /// Whether the background fold made its first pass (it folds once at start, then every
    /// interval): a test that turns the interval up and writes the fold's queues by hand waits
    /// for it, or that first pass may drain them.
    /// At least one: a reader (a monitor scan, say) may wake the fold again as soon as it ran.
    public func firstFoldDone(timeout: Double = 60) -> Bool {
        eventually(timeout: timeout) { foldsDone >= 1 }
    }

    /// The background folds that committed so far (`tapwire_rollup_fold_duration_seconds_count`).
    public var foldsDone: Int {
        let prefix = CollectorMetrics.rollupFoldSeconds + "_count "
        return metrics.render().split(separator: "\n").first { $0.hasPrefix(prefix) }.flatMap { Int($0.dropFirst(prefix.count)) } ?? 0
    }

    public func stop() { collector.stop() }

    deinit { collector.stop() }
}
