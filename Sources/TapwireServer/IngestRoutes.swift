import TapwireCore
import TapwireStore

/// The ingestion API: batches, manifests, health and metrics.
enum IngestRoutes {
    static func all(limits: IngestLimits) -> [Route] {
        // 1 MiB on the wire, 8 MiB decompressed, by default (docs/architecture.md, "Limits").
        let ingestBody = BodyPolicy(maxWireBytes: limits.maxBodyBytes, maxDecodedBytes: limits.maxDecompressedBytes)
        return [
            Route("POST", "/v1/batch", access: .write, body: ingestBody, handle: postBatch),
            Route("POST", "/v1/categories", access: .write, body: ingestBody, handle: postCategories),
            Route("GET", "/healthz", access: .open, handle: { $0.respond(.json(200, ["status": "ok"])) }),
            Route("GET", "/readyz", access: .open, handle: readiness),
            Route("GET", "/metrics", access: .open, handle: { request in
                request.respond(.text(200, request.services.metrics.render(), contentType: "text/plain; version=0.0.4; charset=utf-8"))
            }),
        ]
    }

    /// `POST /v1/batch`: validate, rate-limit, group-commit, answer only after COMMIT.
    static func postBatch(_ call: RouteRequest) {
        guard let identity = call.identity else { return call.fail(APIError(.unauthorized, "missing credentials")) }
        let services = call.services
        let decoded: DecodedBatch
        switch IngestBodyPipeline.decodeBatch(call.request.body, limits: services.configuration.limits, receivedAt: call.request.receivedAt) {
        case .success(let batch): decoded = batch
        case .failure(let error): return call.fail(error)
        }
        for rejection in decoded.rejections {
            services.metrics.increment(CollectorMetrics.eventsRejected, [rejection.code.rawValue])
        }
        if case .limited(let retry) = services.rateLimiter.take(decoded.events.count, keyId: identity.keyId, now: .now) {
            return call.fail(APIError(.rateLimited, "this key is over its rate limit of \(Int(services.rateLimiter.eventsPerSecond)) events a second",
                                      retryAfterSeconds: retry))
        }
        let rejected: [JSONValue] = decoded.rejections.map { r in
            ["index": .int(r.index), "eventId": .optional(r.eventId), "code": .string(r.code.rawValue), "reason": .string(r.reason)]
        }
        let batch = StagedBatch(appId: identity.appId, receivedAt: decoded.receivedAt, context: decoded.context, events: decoded.events)
        let typeCounts = Dictionary(grouping: decoded.events, by: \.type).mapValues(\.count)
        services.committer.submit(batch) { result in
            switch result {
            case .success(let outcome):
                services.mismatchMetrics.observe(batch, outcome: outcome, identity: identity, services: services)
                if outcome.duplicates == 0 {
                    for (type, count) in typeCounts { services.metrics.increment(CollectorMetrics.eventsAccepted, [type.rawValue], by: Double(count)) }
                } else if outcome.stored > 0 {
                    services.metrics.increment(CollectorMetrics.eventsAccepted, ["mixed"], by: Double(outcome.stored))
                }
                services.metrics.increment(CollectorMetrics.eventsDuplicate, [], by: Double(outcome.duplicates))
                var response = HTTPResponse.json(200, [
                    "accepted": .int(outcome.stored), "duplicates": .int(outcome.duplicates), "rejected": .array(rejected),
                ])
                response.annotations = ["accepted": outcome.stored, "duplicates": outcome.duplicates, "rejected": rejected.count,
                                        "clamped": decoded.clampedCount]
                call.respond(response)
            case .failure(let failure):
                var response = HTTPResponse.error(APIError(failure))
                response.annotations = ["rejected": rejected.count, "events": decoded.events.count]
                call.respond(response)
            }
        }
    }

    /// `POST /v1/categories`: the app's registered category manifest for one app version.
    static func postCategories(_ call: RouteRequest) {
        guard let identity = call.identity else { return call.fail(APIError(.unauthorized, "missing credentials")) }
        let manifest: Manifest
        switch IngestBodyPipeline.decodeManifest(call.request.body, limits: call.services.configuration.limits) {
        case .success(let decoded): manifest = decoded
        case .failure(let error): return call.fail(error)
        }
        call.services.database.submit({ (connection) throws(DatabaseError) in
            try ManifestStore().store(manifest, appId: identity.appId, on: connection)
        }) { result in
            switch result {
            case .success(let stored):
                call.services.mismatchMetrics.invalidate(appId: identity.appId)
                call.respond(.json(200, ["manifestId": .int(stored.manifestId), "contentHash": .string(stored.contentHash),
                                         "created": .bool(stored.created), "categories": .int(manifest.categories.count)]))
            case .failure(let error):
                call.fail(APIError(error, doing: "storing the manifest") { APIError($0, doing: "storing the manifest") })
            }
        }
    }

    /// `GET /readyz`: 200 when the database answers and the writers are connected.
    static func readiness(_ call: RouteRequest) {
        let committer = call.services.committer
        call.services.database.submit({ (connection) throws(DatabaseError) in try connection.query(EmbeddedSQL.ping).scalar }) { result in
            switch result {
            case .success where committer.isDatabaseAvailable:
                call.respond(.json(200, ["status": "ready", "queuedEvents": .int(committer.queuedEvents)]))
            default:
                call.respond(.error(APIError(.databaseUnavailable, "the database does not answer", retryAfterSeconds: 1)))
            }
        }
    }
}
