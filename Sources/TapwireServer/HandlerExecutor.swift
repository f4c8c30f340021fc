import TapwireCore
import TapwireLifecycle

/// Where the collector's handlers run: a few threads of its own, as a task executor and a
/// `Service`. A handler waiting for its commit or its reads holds no thread (it awaits), so a few
/// threads carry every request; and since they are the collector's own, handlers never queue
/// behind Swift's process-wide pool of task threads, which a host's blocking code can fill (the
/// tests' synchronous HTTP clients do), nor behind dispatch's, which on Linux grows no thread for
/// one that blocks. Started before the HTTP server, stopped after it has drained.
public final class HandlerExecutor: TaskExecutor, Service {
    public let name = "handlers"
    private let threads: Int
    private let loop = BackgroundLoop(name: "tapwire-handler")
    private let jobs: WorkQueue<UnownedJob>
    private let stopping = ShutdownSignal()

    public init(threads: Int) {
        self.threads = max(1, threads)
        jobs = WorkQueue(loop: loop)
    }

    /// A job enqueued once the threads have stopped (the collector is gone) is dropped: every
    /// request was answered before they stopped.
    public func enqueue(_ job: consuming ExecutorJob) {
        _ = jobs.add(UnownedJob(job))
    }

    /// Runs `body` as a task on these threads.
    public func run(_ body: sending @escaping @isolated(any) () async -> Void) {
        Task(executorPreference: self, operation: body)
    }

    /// Runs jobs until shut down; the jobs queued by then are run first.
    public func run(ready: @escaping @Sendable () -> Void) throws {
        loop.run(threads: threads, ready: ready, until: stopping) { [self] _ in work() }
    }

    public func shutdown() { stopping.raise() }

    private func work() {
        while let job = jobs.next() { job.runSynchronously(on: asUnownedTaskExecutor()) }
    }
}
