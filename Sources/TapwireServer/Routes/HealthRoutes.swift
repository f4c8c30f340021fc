import TapwireCore

/// What operators and Prometheus ask, without a key: `GET /healthz`, `/readyz` and `/metrics`.
public struct HealthRoutes: Sendable {
    public var readiness: any ReadinessProbe
    public var metrics: MetricsRegistry

    public init(readiness: any ReadinessProbe, metrics: MetricsRegistry) {
        self.readiness = readiness
        self.metrics = metrics
    }

    public var all: [Route] {
        [
            Route("GET", "/healthz", access: .open) { _ in .json(200, ["status": "ok"]) },
            Route("GET", "/readyz", access: .open, handle: ready),
            Route("GET", "/metrics", access: .open) { [metrics] _ in
                .text(200, metrics.render(), contentType: "text/plain; version=0.0.4; charset=utf-8")
            },
        ]
    }

    /// `GET /readyz`: 200 when the database answers and the writers are connected.
    func ready(_ call: RouteRequest) async throws(APIError) -> HTTPResponse {
        let (ready, queued) = await readiness.check()
        guard ready else { throw APIError(.databaseUnavailable, "the database does not answer", retryAfterSeconds: 1) }
        return .json(200, ["status": "ready", "queuedEvents": .int(queued)])
    }
}
