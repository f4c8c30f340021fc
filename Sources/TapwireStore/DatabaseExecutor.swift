import Dispatch
import Foundation
import Synchronization
import TapwireCore

/// A few threads, each owning one connection for its whole life, that run queued database work
/// (key lookups, manifests, reports) off the HTTP threads. A connection is never shared: work
/// receives the connection of the thread it runs on, for the duration of the call.
public final class DatabaseExecutor: Sendable {
    private struct Job: Sendable {
        /// Runs the work and hands its result, success or typed failure, to the caller.
        var run: @Sendable (PostgresConnection) -> Void
        /// There was no connection to run it on.
        var unavailable: @Sendable (DatabaseError) -> Void
    }

    private let databaseURL: String
    private let jobs = Mutex<[Job]>([])
    private let wake = DispatchSemaphore(value: 0)
    private let running = Atomic<Bool>(false)
    private let threads: Int
    private let finished = DispatchGroup()
    /// Jobs waiting beyond this are refused, so a stuck database cannot grow memory.
    private let maxQueued: Int

    public init(databaseURL: String, threads: Int = 4, maxQueued: Int = 10_000) {
        self.databaseURL = databaseURL
        self.threads = threads
        self.maxQueued = maxQueued
    }

    public func start() {
        guard !running.exchange(true, ordering: .acquiringAndReleasing) else { return }
        for index in 0..<threads {
            finished.enter()
            let thread = Thread { [self] in
                self.loop()
                self.finished.leave()
            }
            thread.name = "tapwire-db-\(index)"
            thread.start()
        }
    }

    public func shutdown() {
        guard running.exchange(false, ordering: .acquiringAndReleasing) else { return }
        for _ in 0..<threads { wake.signal() }
        finished.wait()
    }

    /// Runs `work` on a database thread and hands its result to `completion` there: the work's
    /// own error as `.failed`, no connection as `.unavailable`.
    public func submit<T: Sendable, Failure: Error>(_ work: @escaping @Sendable (PostgresConnection) throws(Failure) -> T,
                                                    completion: @escaping @Sendable (Result<T, ExecutorError<Failure>>) -> Void) {
        let job = Job(run: { connection in
            do throws(Failure) {
                completion(.success(try work(connection)))
            } catch {
                completion(.failure(.failed(error)))
            }
        }, unavailable: { completion(.failure(.unavailable($0))) })
        let accepted = jobs.withLock { queue -> Bool in
            guard queue.count < maxQueued, running.load(ordering: .relaxed) else { return false }
            queue.append(job)
            return true
        }
        if accepted {
            wake.signal()
        } else {
            completion(.failure(.unavailable(DatabaseError(.connectionFailed, "the database work queue is full or stopped"))))
        }
    }

    /// Blocks the calling thread until `work` has run (for command-line tools and tests).
    public func run<T: Sendable, Failure: Error>(_ work: @escaping @Sendable (PostgresConnection) throws(Failure) -> T) throws(ExecutorError<Failure>) -> T {
        let done = DispatchSemaphore(value: 0)
        let box = Mutex<Result<T, ExecutorError<Failure>>?>(nil)
        submit(work) { result in
            box.withLock { $0 = result }
            done.signal()
        }
        done.wait()
        return try box.withLock { $0! }.get()
    }

    private func loop() {
        var connection: PostgresConnection?
        while true {
            let job = jobs.withLock { $0.isEmpty ? nil : $0.removeFirst() }
            guard let job else {
                if !running.load(ordering: .acquiring) { break }
                _ = wake.wait(timeout: .now() + .milliseconds(500))
                continue
            }
            if connection == nil || connection?.isUsable == false {
                connection?.close()
                connection = nil
                do {
                    connection = try PostgresConnection(url: databaseURL, applicationName: "tapwire-reader")
                } catch {
                    job.unavailable(error)
                    continue
                }
            }
            job.run(connection!)
            if connection?.isUsable == false { connection?.close(); connection = nil }
        }
        connection?.close()
    }
}
