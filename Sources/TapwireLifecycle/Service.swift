/// A long-lived part of a process: the collector's database readers, group-commit writers, rollup
/// fold, findings monitor and HTTP server. One `ServiceGroup` starts them in dependency order and
/// drains them in reverse, so no part outlives what it needs and none stops with work in hand.
public protocol Service: AnyObject, Sendable {
    /// Its name in logs.
    var name: String { get }

    /// Runs the service until it is shut down: brings it up, calls `ready` once it takes work (the
    /// group then starts the services that need it), and returns once `shutdown` has drained it
    /// (what it took is finished or answered, its threads have ended). Throws, without calling
    /// `ready`, when it cannot start; then nothing of it is left running.
    func run(ready: @escaping @Sendable () -> Void) throws

    /// Asks the running service to stop taking work and drain; returns at once (`run` returns
    /// when the drain is done). Asking again, or before `run`, is harmless.
    func shutdown()
}
