import Dispatch
import Foundation
import TapwireCore
import TapwireLifecycle

/// A few threads, each owning one connection for its whole life, that run queued database work
/// (key lookups, manifests, reports) off the HTTP threads. A connection is never shared: work
/// receives the connection of the thread it runs on, for the duration of the call. A `Service`:
/// it takes work once running and, shut down, finishes the work queued before it stops.
public final class DatabaseExecutor: Service {
    private struct Job: Sendable {
        /// Runs the work and hands its result, success or typed failure, to the caller.
        var run: @Sendable (PostgresConnection) -> Void
        /// There was no connection to run it on.
        var unavailable: @Sendable (DatabaseError) -> Void
    }

    public let name = "database-readers"
    private let databaseURL: String
    private let loop = BackgroundLoop(name: "tapwire-db")
    /// Jobs waiting beyond `maxQueued` are refused, so a stuck database cannot grow memory.
    private let jobs: WorkQueue<Job>
    private let stopping = ShutdownSignal()
    private let threads: Int
    private let watch: IdleConnectionWatch

    /// `watch`: where a thread says it replaced a connection the server closed while it sat idle.
    public init(databaseURL: String, threads: Int = 4, maxQueued: Int = 10_000, watch: IdleConnectionWatch = IdleConnectionWatch(logger: nil)) {
        self.databaseURL = databaseURL
        self.threads = threads
        self.watch = watch
        jobs = WorkQueue(loop: loop, limit: maxQueued)
    }

    /// Starts the threads; shut down, they finish the queued work and close their connections.
    public func run(ready: @escaping @Sendable () -> Void) throws {
        loop.run(threads: threads, ready: ready, until: stopping) { [self] _ in work() }
    }

    public func shutdown() { stopping.raise() }

    /// Runs `work` on a database thread and hands its result to `completion` there: the work's
    /// own error as `.failed`, no connection (or the executor not running) as `.unavailable`.
    public func submit<T: Sendable, Failure: Error>(_ work: @escaping @Sendable (PostgresConnection) throws(Failure) -> T,
                                                    completion: @escaping @Sendable (Result<T, ExecutorError<Failure>>) -> Void) {
        let job = Job(run: { connection in
            do throws(Failure) {
                completion(.success(try work(connection)))
            } catch {
                completion(.failure(.failed(error)))
            }
        }, unavailable: { completion(.failure(.unavailable($0))) })
        if !jobs.add(job) {
            completion(.failure(.unavailable(DatabaseError(.connectionFailed, "the database work queue is full or stopped"))))
        }
    }

    /// `submit`, awaited: the caller's task waits for the result without holding a thread.
    public func perform<T: Sendable, Failure: Error>(_ work: @escaping @Sendable (PostgresConnection) throws(Failure) -> T) async
        -> Result<T, ExecutorError<Failure>> {
        await withCheckedContinuation { continuation in
            submit(work) { continuation.resume(returning: $0) }
        }
    }

    private func work() {
        // A connection the server closed while it sat idle (idle_session_timeout, a pooler's,
        // a restart) is replaced before the job's first statement would fail on it.
        var connection = LoopConnection(name: "tapwire-reader", watch: watch) { [databaseURL] () throws(DatabaseError) in
            try PostgresConnection(url: databaseURL, applicationName: "tapwire-reader")
        }
        while let job = jobs.next() {
            let ready: PostgresConnection
            do {
                ready = try connection.ready()
            } catch {
                job.unavailable(error)
                continue
            }
            job.run(ready)
            connection.closeIfBroken()
        }
        connection.close()
    }
}
