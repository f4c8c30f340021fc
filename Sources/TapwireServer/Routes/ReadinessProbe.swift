/// Whether the collector can store events now (`GET /readyz`): the database answers and the
/// writers are connected (DatabaseReadiness.swift).
public protocol ReadinessProbe: Sendable {
    /// Ready or not, and the events waiting for a writer.
    func check() async -> (ready: Bool, queuedEvents: Int)
}
