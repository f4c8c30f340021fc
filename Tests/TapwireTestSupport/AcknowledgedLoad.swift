import Foundation
import Synchronization
import TapwireCore

/// Clients that post batches of new events to collectors and retry each batch, with the same
/// body, until a collector answers 200, as the SDK does. What a test then checks against the
/// database: every acknowledged id stored once, nothing stored that was never posted. Load is
/// bounded: a few threads, one batch in flight each, until `stop`.
public final class AcknowledgedLoad: Sendable {
    public struct Summary: Sendable {
        /// Ids of events in batches a collector answered 200.
        public var acknowledged: Set<String>
        /// Ids of every event posted, acknowledged or not.
        public var posted: Set<String>
        /// Answers other than 200, by status (0: no answer, the connection failed).
        public var failures: [Int: Int]
        /// Whether every failed answer was a 503 with Retry-After, or no answer at all.
        public var onlyRetryableFailures: Bool
    }

    private struct State {
        var acknowledged: Set<String> = []
        var posted: Set<String> = []
        var failures: [Int: Int] = [:]
        var onlyRetryableFailures = true
        var lastAcknowledgement: UInt64 = 0
    }

    private let ports: Mutex<[Int]>
    private let writeKey: String
    private let eventsPerBatch: Int
    private let state = Mutex(State())
    private let running = Atomic<Bool>(true)
    private let done = DispatchGroup()

    /// Starts `clients` threads posting batches of `eventsPerBatch` events, one after another,
    /// to the collectors on `ports` in turn.
    public init(ports: [Int], writeKey: String, clients: Int = 3, eventsPerBatch: Int = 50) {
        self.ports = Mutex(ports)
        self.writeKey = writeKey
        self.eventsPerBatch = eventsPerBatch
        for client in 0..<clients {
            done.enter()
            let thread = Thread { [self] in
                self.run(client: client)
                self.done.leave()
            }
            thread.name = "acknowledged-load-\(client)"
            thread.start()
        }
    }

    /// Acknowledged events so far.
    public var acknowledgedCount: Int { state.withLock { $0.acknowledged.count } }

    /// The monotonic time (nanoseconds) of the latest 200, 0 before the first.
    public var lastAcknowledgement: UInt64 { state.withLock { $0.lastAcknowledgement } }

    /// Stops starting batches; each client keeps retrying its batch in flight for up to
    /// `drainSeconds`, then gives up on it (its events count as posted, not acknowledged).
    public func stop(drainSeconds: Double = 30) -> Summary {
        running.store(false, ordering: .releasing)
        drainDeadline.withLock { $0 = Date().addingTimeInterval(drainSeconds) }
        done.wait()
        return state.withLock { Summary(acknowledged: $0.acknowledged, posted: $0.posted, failures: $0.failures,
                                        onlyRetryableFailures: $0.onlyRetryableFailures) }
    }

    private let drainDeadline = Mutex<Date>(.distantFuture)

    private func run(client: Int) {
        var turn = client
        while running.load(ordering: .acquiring) {
            let events = (0..<eventsPerBatch).map { _ in TestBatch.event() }
            let ids = events.compactMap { $0["eventId"]?.stringValue }
            state.withLock { $0.posted.formUnion(ids) }
            let body = TestBatch.body(events)
            while true {
                let port = ports.withLock { $0[turn % $0.count] }
                turn += 1
                let response = try? HTTPTestClient(port: port).post("/v1/batch", key: writeKey, json: body, extraHeaders: [:])
                if let response, response.status == 200 {
                    state.withLock {
                        $0.acknowledged.formUnion(ids)
                        $0.lastAcknowledgement = monotonicNanoseconds()
                    }
                    break
                }
                let status = response?.status ?? 0
                let retryAfter = response?.headers["retry-after"]
                state.withLock {
                    $0.failures[status, default: 0] += 1
                    if status != 0, !(status == 503 && retryAfter != nil) { $0.onlyRetryableFailures = false }
                }
                if !running.load(ordering: .acquiring), Date() > drainDeadline.withLock({ $0 }) { break }
                Thread.sleep(forTimeInterval: 0.1)
            }
        }
    }
}
