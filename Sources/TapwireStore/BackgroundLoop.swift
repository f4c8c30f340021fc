import Dispatch
import Foundation
import Synchronization

/// The start/stop protocol of the collector's background threads (the rollup fold, the mismatch
/// webhook), written once: one named thread that repeats its work while `isRunning`, sleeps with
/// `pause`, and is woken early by `stop`, which returns once the thread has finished.
public final class BackgroundLoop: Sendable {
    public let name: String
    private let running = Atomic<Bool>(false)
    private let wake = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)

    public init(name: String) { self.name = name }

    public var isRunning: Bool { running.load(ordering: .acquiring) }

    /// Runs `body` on its own thread; it should return soon after `isRunning` turns false.
    public func start(_ body: @escaping @Sendable () -> Void) {
        guard !running.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let thread = Thread { [finished] in
            body()
            finished.signal()
        }
        thread.name = name
        thread.start()
    }

    /// Sleeps up to `seconds`, less when `stop` is called meanwhile.
    public func pause(seconds: Double) {
        _ = wake.wait(timeout: .now() + max(0, seconds))
    }

    /// Ends the loop: wakes a `pause` and waits for `body` to return.
    public func stop() {
        guard running.exchange(false, ordering: .acquiringAndReleasing) else { return }
        wake.signal()
        finished.wait()
    }
}
