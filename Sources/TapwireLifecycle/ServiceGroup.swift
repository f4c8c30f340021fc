import Foundation
import Synchronization
import TapwireCore

/// Starts services in order, each once the one before it is ready, and drains them in reverse:
/// the collector's HTTP server starts last and drains first, so every request it admitted is
/// answered by writers and readers still running; then the findings monitor, the fold, the
/// writers (their queue already empty) and the readers stop (docs/architecture.md, "Lifecycle").
/// Each service's `run` holds a thread of its own for the service's life.
public final class ServiceGroup: Sendable {
    public let services: [any Service]
    private let logger: Logger
    /// How many services are running (the first `running` of `services`), and each one's end.
    private let state = Mutex<(running: Int, finished: [DispatchSemaphore])>((0, []))

    public init(_ services: [any Service], logger: Logger) {
        self.services = services
        self.logger = logger
    }

    /// Runs each service in order and returns once all are ready. When one cannot start, the
    /// ones started are drained in reverse and its error is thrown.
    public func start() throws {
        for service in services {
            let ready = DispatchSemaphore(value: 0)
            let finished = DispatchSemaphore(value: 0)
            let failure = Mutex<(any Error)?>(nil)
            let started = Atomic<Bool>(false)
            let thread = Thread {
                do {
                    try service.run(ready: {
                        started.store(true, ordering: .releasing)
                        ready.signal()
                    })
                } catch {
                    failure.withLock { $0 = error }
                }
                if !started.load(ordering: .acquiring) { ready.signal() }
                finished.signal()
            }
            thread.name = "tapwire-service-\(service.name)"
            thread.start()
            ready.wait()
            if let error = failure.withLock({ $0 }), !started.load(ordering: .acquiring) {
                logger.error("service failed to start", ["service": .string(service.name)])
                shutdown()
                throw error
            }
            state.withLock {
                $0.running += 1
                $0.finished.append(finished)
            }
            logger.debug("service started", ["service": .string(service.name)])
        }
    }

    /// Drains the running services in reverse order, each finished before the next is asked;
    /// returns when all have stopped. Calling it again does nothing.
    public func shutdown() {
        while let (service, finished) = state.withLock({ s -> ((any Service), DispatchSemaphore)? in
            guard s.running > 0 else { return nil }
            s.running -= 1
            return (services[s.running], s.finished.removeLast())
        }) {
            service.shutdown()
            finished.wait()
            logger.debug("service stopped", ["service": .string(service.name)])
        }
    }
}
