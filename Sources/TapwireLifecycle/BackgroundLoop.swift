import Dispatch
import Foundation
import Synchronization

/// The threads of every background loop, written once: the database readers, the group-commit
/// writers, the rollup fold, the findings monitor and the upload watchdog. One or more named
/// threads each repeat their work while `isRunning`; they wait with `pause`, which `wake` (new
/// work) or `stop` ends early, so no loop ever sleeps through a shutdown. `stop` returns once
/// every thread has finished.
public final class BackgroundLoop: Sendable {
    public let name: String
    private let running = Atomic<Bool>(false)
    private let threads = Atomic<Int>(0)
    private let wakeUps = DispatchSemaphore(value: 0)
    private let finished = DispatchGroup()

    public init(name: String) { self.name = name }

    public var isRunning: Bool { running.load(ordering: .acquiring) }

    /// Runs `body` on one thread; it should return soon after `isRunning` turns false.
    public func start(_ body: @escaping @Sendable () -> Void) {
        start(threads: 1) { _ in body() }
    }

    /// Runs `body(index)` on `count` threads (`name-0`, `name-1`, …).
    public func start(threads count: Int, _ body: @escaping @Sendable (Int) -> Void) {
        guard !running.exchange(true, ordering: .acquiringAndReleasing) else { return }
        threads.store(count, ordering: .releasing)
        for index in 0..<count {
            finished.enter()
            let thread = Thread { [finished] in
                body(index)
                finished.leave()
            }
            thread.name = count == 1 ? name : "\(name)-\(index)"
            thread.start()
        }
    }

    /// Waits up to `seconds`, less when `wake` or `stop` is called meanwhile. True when woken.
    @discardableResult
    public func pause(seconds: Double) -> Bool {
        wakeUps.wait(timeout: .now() + max(0, seconds)) == .success
    }

    /// Ends one thread's `pause` (or the next one's, if none is pausing): there is work.
    public func wake() {
        wakeUps.signal()
    }

    /// A `Service`'s run on this loop: starts `body` on `count` threads, calls `ready`, and once
    /// `shutdown` is raised stops the threads (each returns from `body` after its own drain).
    public func run(threads count: Int = 1, ready: () -> Void, until shutdown: ShutdownSignal,
                    _ body: @escaping @Sendable (Int) -> Void) {
        start(threads: count, body)
        ready()
        shutdown.wait()
        stop()
    }

    /// Ends the loop: wakes every thread and waits for each `body` to return.
    public func stop() {
        guard running.exchange(false, ordering: .acquiringAndReleasing) else { return }
        for _ in 0..<threads.load(ordering: .acquiring) { wakeUps.signal() }
        finished.wait()
    }
}
