import Dispatch
import Foundation
import Synchronization
import TapwireCore
import TapwireLifecycle

/// Group commit: requests from many connections are queued, and each writer thread takes
/// everything queued (up to a cap) into one COPY and one transaction. A request is answered
/// only after COMMIT returns, so 200 means durable. The decisions live in `GroupCommitQueue`;
/// this class is the thin driver doing the I/O on threads that each own one connection. A
/// `Service`: shut down, it commits what is queued and answers every request before it stops.
public final class GroupCommitter: Service {
    public typealias Completion = @Sendable (Result<BatchOutcome, CommitFailure>) -> Void

    struct Request: Sendable {
        var batch: StagedBatch
        var completion: Completion
    }

    public struct Options: Sendable {
        public var writers: Int
        public var policy: GroupCommitPolicy
        public var reconnectBackoff: Backoff
        public init(writers: Int = 2, policy: GroupCommitPolicy = .init(),
                    reconnectBackoff: Backoff = Backoff(baseSeconds: 0.2, maxSeconds: 5)) {
            self.writers = writers
            self.policy = policy
            self.reconnectBackoff = reconnectBackoff
        }
    }

    public let name = "group-committer"
    private let databaseURL: String
    private let options: Options
    private let queue: Mutex<GroupCommitQueue<Request>>
    /// The writers' threads; `wake` is what a queued request does.
    private let writers = BackgroundLoop(name: "tapwire-writer")
    private let stopping = ShutdownSignal()
    private let partitions: PartitionDays
    private let logger: Logger
    private let watch: IdleConnectionWatch
    private let onCommit: @Sendable (CommitStats) -> Void
    private let onDatabaseError: @Sendable (DatabaseError) -> Void
    /// Where requests are answered after their COMMIT: the caller's completion (mismatch
    /// counting, the answer's JSON) runs here, so a writer takes its next group at once.
    private let replies = DispatchQueue(label: "tapwire-commit-replies", attributes: .concurrent)

    public init(databaseURL: String, options: Options = Options(), partitions: PartitionDays = PartitionDays(),
                logger: Logger, watch: IdleConnectionWatch? = nil, onCommit: @escaping @Sendable (CommitStats) -> Void = { _ in },
                onDatabaseError: @escaping @Sendable (DatabaseError) -> Void = { _ in }) {
        self.watch = watch ?? IdleConnectionWatch(logger: logger)
        self.databaseURL = databaseURL
        self.options = options
        self.queue = Mutex(GroupCommitQueue(policy: options.policy))
        self.partitions = partitions
        self.logger = logger
        self.onCommit = onCommit
        self.onDatabaseError = onDatabaseError
    }

    /// Events waiting for a writer.
    public var queuedEvents: Int { queue.withLock { $0.queuedEvents } }
    public var isDatabaseAvailable: Bool { queue.withLock { $0.isAvailable } }

    /// Starts the writers. Shut down, they stop taking requests, commit what is queued, and
    /// every request has had its answer before `run` returns.
    public func run(ready: @escaping @Sendable () -> Void) throws {
        writers.run(threads: max(1, options.writers), ready: ready, until: stopping) { [self] index in writerLoop(index: index) }
        // Anything still queued (writers were all disconnected) is answered, never dropped silently;
        // nothing is queued after the writers stopped (`submit` reads whether they run under the lock).
        let leftover = queue.withLock { $0.markUnavailable(retryAfterSeconds: 1) }
        for request in leftover { request.completion(.failure(.unavailable(retryAfterSeconds: 1))) }
        // Every committed request has had its answer before shutdown returns.
        replies.sync(flags: .barrier) {}
    }

    public func shutdown() { stopping.raise() }

    /// Queues a request; `completion` runs exactly once, on the reply queue after its COMMIT or right here.
    public func submit(_ batch: StagedBatch, completion: @escaping Completion) {
        if batch.events.isEmpty, writers.isRunning {
            completion(.success(BatchOutcome(stored: 0, duplicates: 0)))
            return
        }
        let now = monotonicNanoseconds()
        let admission = queue.withLock { q -> GroupCommitQueue<Request>.Admission in
            // Read under the lock, as the writers' last look at the queue is: a request queued
            // while they run is committed or answered, and none is queued after.
            guard writers.isRunning else { return .unavailable(retryAfterSeconds: 1) }
            return q.submit(Request(batch: batch, completion: completion), events: batch.events.count, now: now)
        }
        switch admission {
        case .queued: writers.wake()
        case .overloaded(let retry): completion(.failure(.overloaded(retryAfterSeconds: retry)))
        case .unavailable(let retry): completion(.failure(.unavailable(retryAfterSeconds: retry)))
        }
    }

    private func writerLoop(index: Int) {
        var writer: EventWriter?
        var backoff = options.reconnectBackoff
        var random = SystemRandomNumberGenerator()
        while true {
            let exiting = !writers.isRunning
            if writer == nil || writer?.connection.isUsable == false {
                writer?.connection.close()
                writer = nil
                do {
                    writer = try openWriter()
                    backoff.reset()
                    let wasDown = queue.withLock { q -> Bool in
                        let down = !q.isAvailable
                        q.markAvailable()
                        return down
                    }
                    if wasDown { logger.info("database available again", ["writer": .of(index)]) }
                } catch {
                    onDatabaseError(error)
                    if exiting { return }
                    let delay = backoff.nextDelay(using: &random)
                    failAll(retryAfter: Int(backoff.currentCeiling.rounded(.up)), reason: error)
                    writers.pause(seconds: delay) // ended early by a shutdown
                    continue
                }
            }
            guard let activeWriter = writer else { continue }
            let now = monotonicNanoseconds()
            // Stopping is read again under the lock, as `submit` reads it: once it is seen, nothing
            // more is queued, and an empty queue means this writer is done.
            let (draining, decision) = queue.withLock { q -> (Bool, GroupCommitQueue<Request>.Take) in
                guard writers.isRunning else { return (true, q.takeGroup().map { .commit($0) } ?? .idle) }
                return (false, q.take(now: now))
            }
            switch decision {
            case .idle:
                if draining { activeWriter.connection.close(); return }
                writers.pause(seconds: 0.5)
            case .waitUntil(let due):
                writers.pause(seconds: Double(min(due &- now, 50_000_000)) / 1e9)
            case .commit(let group):
                // A connection the server closed while it sat idle (idle_session_timeout, a
                // pooler's, a restart) is replaced before the group's BEGIN would fail on it.
                var groupWriter = activeWriter
                if watch.closed(activeWriter.connection, name: "tapwire-writer") {
                    activeWriter.connection.close()
                    do {
                        groupWriter = try openWriter()
                        writer = groupWriter
                    } catch {
                        writer = nil
                        onDatabaseError(error)
                        logger.log(.warning, "database unavailable", error.logFields)
                        for request in group { reply(request, .failure(.unavailable(retryAfterSeconds: 1))) }
                        failAll(retryAfter: 1, reason: error)
                        queue.withLock { $0.finishedGroup() }
                        continue
                    }
                }
                commit(group, with: groupWriter)
                queue.withLock { $0.finishedGroup() }
            }
        }
    }

    /// A writer on a new connection, with the partitions of the days around now created.
    private func openWriter() throws(DatabaseError) -> EventWriter {
        let connection = try PostgresConnection(url: databaseURL, applicationName: "tapwire-writer")
        let fresh = EventWriter(connection: connection, partitions: partitions)
        try fresh.precreatePartitions(now: .now)
        return fresh
    }

    private func commit(_ group: [Request], with writer: EventWriter) {
        let started = monotonicNanoseconds()
        do {
            let outcomes = try writer.commit(group.map(\.batch))
            let seconds = secondsSince(started)
            var stats = CommitStats(requests: group.count, events: 0, stored: 0, duplicates: 0, seconds: seconds)
            for (request, outcome) in zip(group, outcomes) {
                stats.events += request.batch.events.count
                stats.stored += outcome.stored
                stats.duplicates += outcome.duplicates
            }
            onCommit(stats)
            for (request, outcome) in zip(group, outcomes) { reply(request, .success(outcome)) }
        } catch {
            onDatabaseError(error)
            if error.isUnavailable || !writer.connection.isUsable {
                logger.log(.warning, "database unavailable", error.logFields)
                for request in group { reply(request, .failure(.unavailable(retryAfterSeconds: 1))) }
                failAll(retryAfter: 1, reason: error)
                writer.connection.close()
            } else if group.count > 1 {
                // One request's rows may be what the database refuses: commit each alone so the
                // others are not failed with it.
                for request in group { commit([request], with: writer) }
            } else {
                logger.log(.error, "commit refused", error.logFields)
                for request in group { reply(request, .failure(.rejected(code: error.code.rawValue, sqlState: error.sqlState))) }
            }
        }
    }

    private func failAll(retryAfter: Int, reason: DatabaseError) {
        let failed = queue.withLock { $0.markUnavailable(retryAfterSeconds: retryAfter) }
        for request in failed { reply(request, .failure(.unavailable(retryAfterSeconds: retryAfter))) }
    }

    private func reply(_ request: Request, _ result: Result<BatchOutcome, CommitFailure>) {
        let completion = request.completion
        replies.async { completion(result) }
    }
}
