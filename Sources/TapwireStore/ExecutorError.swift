import Foundation

/// Why work submitted to a `DatabaseExecutor` failed: the work's own typed error, or no
/// connection to run it on (the queue full or stopped, the server unreachable).
public enum ExecutorError<Failure: Error>: Error {
    case failed(Failure)
    case unavailable(DatabaseError)
}

extension ExecutorError: Sendable where Failure: Sendable {}
