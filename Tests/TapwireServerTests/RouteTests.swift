import Foundation
import Synchronization
import Testing
import TapwireCore
import TapwireLifecycle
import TapwireReport
@testable import TapwireServer
import TapwireStore
import TapwireTestSupport

/// Route logic on its own: each handler is a function from a request to its response, given the
/// small protocols it needs; here they are stand-ins in this process, so no server, socket or
/// database is involved. (IngestionTests, SecurityTests and the scenario tests run the same
/// routes through the real collector, PostgreSQL and HTTP.)
@Suite struct RouteTests {
    // MARK: Stand-ins for what the routes depend on

    /// Stores nothing; answers what it is told to and keeps the batches it was given.
    final class EventSinkStandIn: EventSink {
        let answer: Result<BatchOutcome, CommitFailure>
        let stored = Mutex<[StagedBatch]>([])
        init(_ answer: Result<BatchOutcome, CommitFailure>) { self.answer = answer }
        func store(_ batch: StagedBatch) async -> Result<BatchOutcome, CommitFailure> {
            stored.withLock { $0.append(batch) }
            return answer
        }
    }

    struct ManifestSinkStandIn: ManifestSink {
        func store(_ manifest: Manifest, appId: Int64) async throws(APIError) -> StoredManifest {
            StoredManifest(manifestId: 12, contentHash: manifest.contentHash, created: true)
        }
    }

    /// Keeps what it observed.
    final class ObserverStandIn: IngestObserver {
        let seen = Mutex<[String]>([])
        func rejected(_ rejections: [EventRejection]) { seen.withLock { $0.append("rejected \(rejections.count)") } }
        func committed(_ batch: StagedBatch, outcome: BatchOutcome, identity: KeyIdentity) {
            seen.withLock { $0.append("committed \(outcome.stored)/\(outcome.duplicates) of app \(identity.appId)") }
        }
        func manifestStored(appId: Int64) { seen.withLock { $0.append("manifest of app \(appId)") } }
    }

    struct ReadinessStandIn: ReadinessProbe {
        var ready: Bool
        func check() async -> (ready: Bool, queuedEvents: Int) { (ready, 7) }
    }

    /// Answers every findings read with what it holds, and keeps the queries it was asked.
    final class FindingsStandIn: FindingsReader {
        let queries = Mutex<[FindingsQuery]>([])
        func findings(appId: Int64, appName: String, query: FindingsQuery) async throws(APIError) -> FindingsReport {
            queries.withLock { $0.append(query) }
            return FindingsReport(app: appName, asOf: query.asOf, sections: [
                CategoryMismatchSection(report: MismatchReport(app: appName, since: query.since, until: query.asOf, findings: [
                    MismatchFinding(kind: .unknownCategory, severity: .error, category: "promo", count: 3, appVersions: ["1.0"],
                                    platforms: ["iOS"], firstSeen: query.since, lastSeen: query.since, message: "m"),
                ])),
            ])
        }
        func regressions(appId: Int64, query: FindingsQuery) async throws(APIError) -> RegressionCheck {
            throw APIError(.databaseUnavailable, "the database is unavailable; retry later", retryAfterSeconds: 1)
        }
        func mismatches(appId: Int64, appName: String, query: FindingsQuery) async throws(APIError) -> MismatchReport {
            MismatchReport(app: appName, since: query.since, until: query.asOf, findings: [])
        }
    }

    final class KeyResolverStandIn: KeyResolver {
        private let lookupCount = Atomic<Int>(0)
        var lookups: Int { lookupCount.load(ordering: .relaxed) }
        let known: [String: KeyIdentity]
        let failing: Bool
        init(known: [String: KeyIdentity] = [:], failing: Bool = false) {
            self.known = known
            self.failing = failing
        }
        func resolve(_ key: APIKey) async throws(APIError) -> KeyIdentity? {
            lookupCount.add(1, ordering: .relaxed)
            if failing { throw APIError(.databaseUnavailable, "the database is unavailable; retry later", retryAfterSeconds: 1) }
            return known[key.keyId]
        }
    }

    static let app = KeyIdentity(appId: 4, appName: "shop", kind: .write, keyId: "k1")
    static let reader = KeyIdentity(appId: 4, appName: "shop", kind: .read, keyId: "k2")

    static func request(_ method: String, _ path: String, query: [String: String] = [:], headers: [String: String] = [:],
                        body: [UInt8] = []) -> HTTPRequest {
        HTTPRequest(head: RequestHead(method: method, path: path, query: query, headers: headers), body: body, receivedAt: .now,
                    wireBytes: body.count)
    }

    static func ingest(_ sink: EventSinkStandIn, observer: ObserverStandIn, rate: Double = 0) -> IngestRoutes {
        IngestRoutes(events: sink, manifests: ManifestSinkStandIn(), rateLimiter: RateLimiter(eventsPerSecond: rate), observers: [observer],
                     limits: IngestLimits())
    }

    static func route(_ routes: [Route], _ path: String) throws -> Route { try #require(routes.first { $0.path == path }) }

    // MARK: Ingestion

    @Test func aBatchIsStoredUnderTheKeysAppAndAnsweredWithItsCounts() async throws {
        let sink = EventSinkStandIn(.success(BatchOutcome(stored: 1, duplicates: 1)))
        let observer = ObserverStandIn()
        let route = try Self.route(Self.ingest(sink, observer: observer).all, "/v1/batch")
        let body = TestBatch.body([TestBatch.event(), TestBatch.event(), TestBatch.event("response", [("actionIdentifier", 7)])])
        let response = await route.handle(RouteRequest(request: Self.request("POST", "/v1/batch", body: body), identity: Self.app))
        #expect(response.status == 200)
        let json = try JSONParser().parse(response.body)
        #expect(json["accepted"]?.numberValue?.integer == 1 && json["duplicates"]?.numberValue?.integer == 1)
        #expect(json["rejected"]?.arrayValue?.first?["code"]?.stringValue == "invalid_field")
        #expect(response.annotations == ["accepted": 1, "duplicates": 1, "rejected": 1, "clamped": 0])
        #expect(sink.stored.withLock { $0.map(\.appId) } == [4] && sink.stored.withLock { $0.first?.events.count } == 2)
        #expect(observer.seen.withLock { $0 } == ["rejected 1", "committed 1/1 of app 4"])
    }

    @Test func nothingIsStoredWhenTheBodyIsRefusedOrTheKeyIsOverItsLimit() async throws {
        let sink = EventSinkStandIn(.success(BatchOutcome(stored: 1, duplicates: 0)))
        let observer = ObserverStandIn()
        let routes = Self.ingest(sink, observer: observer, rate: 1).all
        let batch = try Self.route(routes, "/v1/batch")
        let malformed = await batch.handle(RouteRequest(request: Self.request("POST", "/v1/batch", body: Array("{".utf8)), identity: Self.app))
        #expect(try malformed.status == 400 && JSONParser().parse(malformed.body)["error"]?["code"]?.stringValue == "malformed_json")
        // A burst of two events is allowed at 1/s; five are not.
        let many = TestBatch.body((0..<5).map { _ in TestBatch.event() })
        let limited = await batch.handle(RouteRequest(request: Self.request("POST", "/v1/batch", body: many), identity: Self.app))
        #expect(limited.status == 429 && limited.headers.contains { $0.0 == "Retry-After" })
        let noKey = await batch.handle(RouteRequest(request: Self.request("POST", "/v1/batch", body: many), identity: nil))
        #expect(noKey.status == 401)
        #expect(sink.stored.withLock { $0.isEmpty })
    }

    @Test func aCommitThatStoredNothingIsA503TheClientRetries() async throws {
        let sink = EventSinkStandIn(.failure(.overloaded(retryAfterSeconds: 2)))
        let route = try Self.route(Self.ingest(sink, observer: ObserverStandIn()).all, "/v1/batch")
        let response = await route.handle(RouteRequest(request: Self.request("POST", "/v1/batch", body: TestBatch.body([TestBatch.event()])),
                                                       identity: Self.app))
        #expect(response.status == 503 && response.headers.contains { $0 == ("Retry-After", "2") })
        #expect(try JSONParser().parse(response.body)["error"]?["code"]?.stringValue == "overloaded")
    }

    @Test func aManifestIsStoredAndTheObserversAreTold() async throws {
        let observer = ObserverStandIn()
        let route = try Self.route(Self.ingest(EventSinkStandIn(.success(BatchOutcome(stored: 0, duplicates: 0))), observer: observer).all,
                                   "/v1/categories")
        let body = Array(#"{"appVersion":"1.0","categories":[{"identifier":"message","actions":[]}]}"#.utf8)
        let response = await route.handle(RouteRequest(request: Self.request("POST", "/v1/categories", body: body), identity: Self.app))
        #expect(response.status == 200)
        let json = try JSONParser().parse(response.body)
        #expect(json["manifestId"]?.numberValue?.integer == 12 && json["categories"]?.numberValue?.integer == 1)
        #expect(observer.seen.withLock { $0 } == ["manifest of app 4"])
    }

    @Test func ingestMetricsCountByTypeOrAsMixed() {
        let metrics = MetricsRegistry()
        CollectorMetrics.declare(in: metrics)
        let counter = IngestMetrics(metrics: metrics)
        let batch = StagedBatch(appId: 4, receivedAt: .now, context: DeviceContext(), events: [])
        counter.committed(batch, outcome: BatchOutcome(stored: 3, duplicates: 2), identity: Self.app)
        let text = metrics.render()
        #expect(text.contains(#"tapwire_events_accepted_total{type="mixed"} 3"#) && text.contains("tapwire_events_duplicate_total 2"))
    }

    // MARK: Health

    @Test func readinessIsTheProbesAnswer() async throws {
        let metrics = MetricsRegistry()
        let ready = try Self.route(HealthRoutes(readiness: ReadinessStandIn(ready: true), metrics: metrics).all, "/readyz")
        let yes = await ready.handle(RouteRequest(request: Self.request("GET", "/readyz"), identity: nil))
        #expect(try yes.status == 200 && JSONParser().parse(yes.body)["queuedEvents"]?.numberValue?.integer == 7)
        let notReady = try Self.route(HealthRoutes(readiness: ReadinessStandIn(ready: false), metrics: metrics).all, "/readyz")
        let no = await notReady.handle(RouteRequest(request: Self.request("GET", "/readyz"), identity: nil))
        #expect(no.status == 503 && no.headers.contains { $0 == ("Retry-After", "1") })
    }

    // MARK: Findings

    @Test func findingsAreFilteredRenderedAndTheirQueryParsedOnce() async throws {
        let reader = FindingsStandIn()
        let route = try Self.route(FindingRoutes(findings: reader).all, "/v1/findings")
        let csv = await route.handle(RouteRequest(request: Self.request("GET", "/v1/findings", query: ["since": "2d", "minSeverity": "error"],
                                                                         headers: ["accept": "text/csv"]), identity: Self.reader))
        #expect(csv.status == 200 && csv.headers.contains { $0.0 == "Content-Disposition" && $0.1.contains("findings-shop.csv") })
        #expect(String(decoding: csv.body, as: UTF8.self).hasPrefix("kind,severity,category,action,appVersions,baselineVersion,count"))
        #expect(csv.annotations == ["findings": 1])
        let query = try #require(reader.queries.withLock { $0.first })
        #expect(query.asOf.microseconds - query.since.microseconds == 2 * 86_400 * 1_000_000 && query.look == .current)
        for (parameters, fragment) in [(["since": "401d"], "400 days"), (["fresh": "maybe"], "fresh must be true or false"),
                                       (["sinse": "1d"], "unknown query parameter"), (["format": "xml"], "format must")] {
            let refused = await route.handle(RouteRequest(request: Self.request("GET", "/v1/findings", query: parameters), identity: Self.reader))
            #expect(refused.status == 400 && String(decoding: refused.body, as: UTF8.self).contains(fragment), "\(parameters)")
        }
        let otherApp = await route.handle(RouteRequest(request: Self.request("GET", "/v1/findings", query: ["app": "other"]), identity: Self.reader))
        #expect(otherApp.status == 403)
        #expect(reader.queries.withLock { $0.count } == 1, "a refused query reads nothing")
    }

    @Test func aReaderThatCannotReadAnswers503() async throws {
        let route = try Self.route(FindingRoutes(findings: FindingsStandIn()).all, "/v1/reports/regressions")
        let response = await route.handle(RouteRequest(request: Self.request("GET", "/v1/reports/regressions"), identity: Self.reader))
        #expect(try response.status == 503 && JSONParser().parse(response.body)["error"]?["code"]?.stringValue == "database_unavailable")
    }

    // MARK: The collector's handler: routes, keys, answers

    /// The handlers' threads of the tests below: a service that runs for the whole process.
    static let executor: HandlerExecutor = {
        let executor = HandlerExecutor(threads: 2)
        try! ServiceGroup([executor], logger: Logger(label: "test", sink: .memory())).start()
        return executor
    }()

    static func handler(resolver: KeyResolverStandIn, routes: [Route]) -> CollectorHandler {
        // A clock that stands still: what is cached stays cached however long the test takes.
        CollectorHandler(routes: routes, keys: KeyCache(ttlSeconds: 30), resolver: resolver, metrics: MetricsRegistry(),
                         logger: Logger(label: "test", sink: .memory()), executor: executor, clock: { 1_000_000_000 })
    }

    /// What the handler answers a request: refused at its head, or its route's answer.
    static func answer(_ handler: CollectorHandler, _ method: String, _ path: String, key: APIKey?) async -> HTTPResponse {
        let headers = key.map { ["authorization": HTTPTestClient.basic($0.text)] } ?? [:]
        switch handler.admit(RequestHead(method: method, path: path, query: [:], headers: headers)) {
        case .reject(let response, _):
            return response
        case .accept(_, let responder):
            return await withCheckedContinuation { continuation in
                responder.handle(Self.request(method, path, headers: headers)) { continuation.resume(returning: $0) }
            }
        }
    }

    @Test func keysAreCheckedBeforeAnyBodyAndResolvedOnceThenCached() async throws {
        let write = APIKey.generate(kind: .write), read = APIKey.generate(kind: .read)
        let resolver = KeyResolverStandIn(known: [write.keyId: KeyIdentity(appId: 4, appName: "shop", kind: .write, keyId: write.keyId)])
        let echo = Route("POST", "/v1/echo", access: .write) { call throws(APIError) in .json(200, ["app": .int(try call.app().appId)]) }
        let handler = Self.handler(resolver: resolver, routes: [echo])
        #expect(await Self.answer(handler, "GET", "/nope", key: nil).status == 404)
        #expect(await Self.answer(handler, "GET", "/v1/echo", key: write).status == 405)
        #expect(await Self.answer(handler, "POST", "/v1/echo", key: nil).status == 401)
        #expect(await Self.answer(handler, "POST", "/v1/echo", key: read).status == 403)
        #expect(resolver.lookups == 0, "refused before any lookup")
        for _ in 0..<3 { #expect(await Self.answer(handler, "POST", "/v1/echo", key: write).status == 200) }
        #expect(resolver.lookups == 1, "then from the cache")
        let unknown = APIKey.generate(kind: .write)
        for _ in 0..<2 { #expect(await Self.answer(handler, "POST", "/v1/echo", key: unknown).status == 401) }
        #expect(resolver.lookups == 2, "an unknown key is remembered too")
    }

    @Test func aKeyThatCannotBeLookedUpIsA503NotA401() async {
        let handler = Self.handler(resolver: KeyResolverStandIn(failing: true),
                                   routes: [Route("POST", "/v1/echo", access: .write) { _ in .json(200, [:]) }])
        let response = await Self.answer(handler, "POST", "/v1/echo", key: APIKey.generate(kind: .write))
        #expect(response.status == 503 && response.headers.contains { $0 == ("Retry-After", "1") })
    }
}
