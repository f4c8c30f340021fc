import TapwireCore
import TapwireStore

/// The ingestion API: `POST /v1/batch` and `POST /v1/categories`, with the app's write key.
public struct IngestRoutes: Sendable {
    public var events: any EventSink
    public var manifests: any ManifestSink
    public var rateLimiter: RateLimiter
    /// Told what each request did (metrics, mismatch counters): the routes only call them.
    public var observers: [any IngestObserver]
    public var limits: IngestLimits

    public init(events: any EventSink, manifests: any ManifestSink, rateLimiter: RateLimiter, observers: [any IngestObserver],
                limits: IngestLimits) {
        self.events = events
        self.manifests = manifests
        self.rateLimiter = rateLimiter
        self.observers = observers
        self.limits = limits
    }

    public var all: [Route] {
        // 1 MiB on the wire, 8 MiB decompressed, by default (docs/architecture.md, "Limits").
        let ingestBody = BodyPolicy(maxWireBytes: limits.maxBodyBytes, maxDecodedBytes: limits.maxDecompressedBytes)
        return [
            Route("POST", "/v1/batch", access: .write, body: ingestBody, handle: postBatch),
            Route("POST", "/v1/categories", access: .write, body: ingestBody, handle: postCategories),
        ]
    }

    /// `POST /v1/batch`: validate, rate-limit, group-commit, answer only after COMMIT.
    func postBatch(_ call: RouteRequest) async throws(APIError) -> HTTPResponse {
        let identity = try call.app()
        let decoded = try IngestBodyPipeline.decodeBatch(call.request.body, limits: limits, receivedAt: call.request.receivedAt).get()
        for observer in observers { observer.rejected(decoded.rejections) }
        if case .limited(let retry) = rateLimiter.take(decoded.events.count, keyId: identity.keyId, now: .now) {
            throw APIError(.rateLimited, "this key is over its rate limit of \(Int(rateLimiter.eventsPerSecond)) events a second",
                           retryAfterSeconds: retry)
        }
        let rejected: [JSONValue] = decoded.rejections.map { r in
            ["index": .int(r.index), "eventId": .optional(r.eventId), "code": .string(r.code.rawValue), "reason": .string(r.reason)]
        }
        let batch = StagedBatch(appId: identity.appId, receivedAt: decoded.receivedAt, context: decoded.context, events: decoded.events)
        switch await events.store(batch) {
        case .success(let outcome):
            for observer in observers { observer.committed(batch, outcome: outcome, identity: identity) }
            var response = HTTPResponse.json(200, [
                "accepted": .int(outcome.stored), "duplicates": .int(outcome.duplicates), "rejected": .array(rejected),
            ])
            response.annotations = ["accepted": outcome.stored, "duplicates": outcome.duplicates, "rejected": rejected.count,
                                    "clamped": decoded.clampedCount]
            return response
        case .failure(let failure):
            var response = HTTPResponse.error(APIError(failure))
            response.annotations = ["rejected": rejected.count, "events": decoded.events.count]
            return response
        }
    }

    /// `POST /v1/categories`: the app's registered category manifest for one app version.
    func postCategories(_ call: RouteRequest) async throws(APIError) -> HTTPResponse {
        let identity = try call.app()
        let manifest = try IngestBodyPipeline.decodeManifest(call.request.body, limits: limits).get()
        let stored = try await manifests.store(manifest, appId: identity.appId)
        for observer in observers { observer.manifestStored(appId: identity.appId) }
        return .json(200, ["manifestId": .int(stored.manifestId), "contentHash": .string(stored.contentHash),
                           "created": .bool(stored.created), "categories": .int(manifest.categories.count)])
    }
}
