import TapwireCore
import TapwireStore

/// What the benchmarks that load their own events share: an app with the 20-category manifests of
/// versions 3.1 to 3.5, events written by one of sql/bench's generators in chunks, and medians.
enum BenchLoad {
    /// A new app (named `prefix` and a random suffix, so runs in one database do not collide)
    /// with MismatchBenchmark's manifests; its id.
    static func app(_ prefix: String, on connection: PostgresConnection) throws -> (appId: Int64, name: String) {
        let name = "\(prefix)-\(UInt32.random(in: 0...UInt32.max))"
        let appId = try AppStore().createApp(named: name, on: connection).appId
        for version in MismatchBenchmark.versions.dropFirst() {
            _ = try ManifestStore().store(MismatchBenchmark.manifest(version), appId: appId, on: connection)
        }
        return (appId, name)
    }

    /// `events` rows of `generator` (its parameters: app, first row, rows, total rows, window
    /// start, window seconds) spread over the `days` from `start`, a million per statement,
    /// into partitions created first.
    static func generate(_ generator: SQL, appId: Int64, events: Int, start: Timestamp, days: Int,
                         on connection: PostgresConnection) throws(DatabaseError) {
        let end = start.adding(seconds: Double(days) * 86_400)
        try connection.query(EmbeddedSQL.ensurePartitions, [CivilCalendar.isoDate(start.utcDay - 1), CivilCalendar.isoDate(end.utcDay + 1)])
        let chunk = 1_000_000
        var loaded = 0
        while loaded < events {
            let n = min(chunk, events - loaded)
            try connection.query(generator, [String(appId), String(loaded), String(n), String(events), start.description, String(days * 86_400)])
            loaded += n
        }
    }

    /// The median of `n` timings of `body`, in milliseconds.
    static func median(_ n: Int, _ body: () throws -> Void) rethrows -> Double {
        var times: [Double] = []
        for _ in 0..<max(1, n) {
            let begin = monotonicNanoseconds()
            try body()
            times.append(secondsSince(begin) * 1e3)
        }
        return times.sorted()[times.count / 2]
    }
}
