import Dispatch
import Synchronization

/// The one-shot "shut down" of a `Service`: `shutdown()` raises it, and the service's `run`
/// waits for it before draining. Raised once; raising it again does nothing.
public final class ShutdownSignal: Sendable {
    private let raised = Atomic<Bool>(false)
    private let semaphore = DispatchSemaphore(value: 0)

    public init() {}

    public var isRaised: Bool { raised.load(ordering: .acquiring) }

    public func raise() {
        guard !raised.exchange(true, ordering: .acquiringAndReleasing) else { return }
        semaphore.signal()
    }

    /// Blocks until the signal is raised (at once if it was).
    public func wait() {
        semaphore.wait()
        semaphore.signal() // another waiter, or a later `wait`, passes too
    }
}
