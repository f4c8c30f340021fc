import Foundation
import Synchronization
import TapwireLoopbackClient
import TapwireStore
#if canImport(Glibc)
import Glibc
#endif

/// The collector process, restartable on the same port; its peak RSS is sampled across restarts.
final class CollectorProcess: Sendable {
    let port = EmbeddedPostgres.freePort()
    private let tapwire: String
    private let databaseURL: String
    private let log: String
    private let teardown: Teardown
    private let child = Mutex<Subprocess.Child?>(nil)
    private let peak = Atomic<Int>(0)
    let restarts = Atomic<Int>(0)

    init(tapwire: String, databaseURL: String, work: String, teardown: Teardown) {
        self.tapwire = tapwire
        self.databaseURL = databaseURL
        self.log = work + "/collector.log"
        self.teardown = teardown
    }

    var endpoint: String { "http://127.0.0.1:\(port)" }

    func start() {
        guard let spawned = try? Subprocess.spawn(tapwire, ["serve", "--database-url", databaseURL, "--port", String(port), "--log-level", "warning"],
                                                  logPath: log, environment: ["TAPWIRE_RATE_LIMIT": "0"]) else { teardown.fail("cannot start the collector") }
        child.withLock { $0 = spawned }
        for _ in 0..<300 {
            if HTTPClientConnection.answers200(port: port) { return }
            usleep(100_000)
        }
        teardown.fail("the collector did not come up; see \(log)")
    }

    func sample() {
        guard let current = child.withLock({ $0 }) else { return }
        let rss = current.peakResidentBytes
        if rss > peak.load(ordering: .relaxed) { peak.store(rss, ordering: .relaxed) }
    }

    /// Samples the RSS four times a second, for the rest of the run.
    func startSampling() {
        Thread { [self] in
            while true {
                sample()
                Thread.sleep(forTimeInterval: 0.25)
            }
        }.start()
    }

    func kill9() {
        sample()
        guard let current = child.withLock({ c -> Subprocess.Child? in defer { c = nil }; return c }) else { return }
        current.signal(SIGKILL)
        _ = current.wait(timeout: 10)
    }

    func stop() {
        sample()
        guard let current = child.withLock({ c -> Subprocess.Child? in defer { c = nil }; return c }) else { return }
        current.signal(SIGINT)
        if current.wait(timeout: 30) == nil { current.signal(SIGKILL); _ = current.wait(timeout: 5) }
    }

    var peakRSS: Int { peak.load(ordering: .relaxed) }
}
