/// The metric names the collector itself records, declared in one place.
public enum CollectorMetrics {
    public static let requests = "tapwire_http_requests_total"
    public static let requestSeconds = "tapwire_http_request_duration_seconds"
    public static let eventsAccepted = "tapwire_events_accepted_total"
    public static let eventsDuplicate = "tapwire_events_duplicate_total"
    public static let eventsRejected = "tapwire_events_rejected_total"
    public static let batchSeconds = "tapwire_batch_commit_duration_seconds"
    public static let commitEvents = "tapwire_commit_events"
    public static let databaseErrors = "tapwire_database_errors_total"
    public static let databaseConnectionsReplaced = "tapwire_database_connections_replaced_total"
    public static let rollupFoldSeconds = "tapwire_rollup_fold_duration_seconds"
    public static let rollupDeltasFolded = "tapwire_rollup_deltas_folded_total"
    public static let readFoldWaits = "tapwire_read_fold_waits_total"
    public static let readFoldWaitSeconds = "tapwire_read_fold_wait_seconds"
    public static let readFoldWaiting = "tapwire_read_fold_waiting"
    public static let queueDepth = "tapwire_commit_queue_events"
    public static let connections = "tapwire_http_connections"
    public static let bufferedBodyBytes = "tapwire_http_buffered_body_bytes"

    static let latencyBuckets: [Double] = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

    public static func declare(in registry: MetricsRegistry) {
        registry.declare(requests, help: "HTTP requests by route and status.", kind: .counter, labels: ["route", "status"])
        registry.declare(requestSeconds, help: "HTTP request latency, from the headers to the response, by route.",
                         kind: .histogram, labels: ["route"], buckets: latencyBuckets)
        registry.declare(eventsAccepted, help: "Events newly stored.", kind: .counter, labels: ["type"])
        registry.declare(eventsDuplicate, help: "Events received again (same eventId) and not stored twice.", kind: .counter)
        registry.declare(eventsRejected, help: "Events refused, by reason code.", kind: .counter, labels: ["reason"])
        registry.declare(batchSeconds, help: "Group commit transaction time.", kind: .histogram, buckets: latencyBuckets)
        registry.declare(commitEvents, help: "Events per group commit transaction.", kind: .histogram,
                         buckets: [1, 10, 100, 500, 1000, 2000, 5000, 10000, 20000])
        registry.declare(databaseErrors, help: "Database errors, by error code.", kind: .counter, labels: ["code"])
        registry.declare(databaseConnectionsReplaced,
                         help: "Database connections the server closed while they sat idle (idle_session_timeout, a pooler, a restart), replaced before their next use, by connection.",
                         kind: .counter, labels: ["connection"])
        registry.declare(rollupFoldSeconds, help: "Time of one fold of pending rollup deltas into the rollups.", kind: .histogram,
                         buckets: latencyBuckets)
        registry.declare(rollupDeltasFolded, help: "Pending rollup deltas folded into the rollups (their finest rows, before the coarser grains are derived).", kind: .counter)
        registry.declare(readFoldWaits, help: "Exact readers (reports, findings, monitor scans) that waited for the background fold: shared, or why they folded themselves (fold_failed, stopped, timed_out).",
                         kind: .counter, labels: ["outcome"])
        registry.declare(readFoldWaitSeconds, help: "How long an exact reader waited for the background fold.", kind: .histogram,
                         buckets: latencyBuckets)
    }
}
