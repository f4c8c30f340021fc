import Dispatch
import Foundation
import Synchronization
import TapwireCore

/// A few threads, each owning one connection for its whole life, that run queued database work
/// (key lookups, manifests, reports) off the HTTP threads. A connection is never shared: work
/// receives the connection of the thread it runs on, for the duration of the call.
public final class DatabaseExecutor: Sendable {
    public typealias Work = @Sendable (PostgresConnection) throws -> Void

    private struct Job: Sendable {
        var work: Work
        var failed: @Sendable (any Error) -> Void
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

    /// Runs `work` on a database thread and hands its result to `completion` there. Connection
    /// failures arrive as `DatabaseError` with `isUnavailable`.
    public func submit<T: Sendable>(_ work: @escaping @Sendable (PostgresConnection) throws -> T,
                                    completion: @escaping @Sendable (Result<T, any Error>) -> Void) {
        let job = Job(work: { connection in completion(.success(try work(connection))) },
                      failed: { completion(.failure($0)) })
        let accepted = jobs.withLock { queue -> Bool in
            guard queue.count < maxQueued, running.load(ordering: .relaxed) else { return false }
            queue.append(job)
            return true
        }
        if accepted {
            wake.signal()
        } else {
            completion(.failure(DatabaseError(.connectionFailed, "the database work queue is full or stopped")))
        }
    }

    /// Blocks the calling thread until `work` has run (for command-line tools and tests).
    public func run<T: Sendable>(_ work: @escaping @Sendable (PostgresConnection) throws -> T) throws -> T {
        let done = DispatchSemaphore(value: 0)
        let box = Mutex<Result<T, any Error>?>(nil)
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
            do {
                if connection == nil || connection?.isUsable == false {
                    connection?.close()
                    connection = try PostgresConnection(url: databaseURL, applicationName: "tapwire-reader")
                }
                try job.work(connection!)
            } catch {
                if connection?.isUsable == false { connection?.close(); connection = nil }
                job.failed(error)
            }
        }
        connection?.close()
    }
}
