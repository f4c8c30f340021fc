import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Synchronization
import TapwireCore
import TapwireStore

/// Posts a Slack-compatible message to TAPWIRE_ALERT_WEBHOOK_URL the first time each (app,
/// version, kind, category) finding appears.
///
/// - Exactly once across restarts and collectors: a finding is claimed by inserting its key into
///   the `mismatch_alerts` outbox (the primary key is the claim); delivery leases the row, and
///   it is marked sent only after a 2xx. The one gap left is a crash between the receiver's 2xx
///   and that update; the message is then sent again once the lease ends, with the same
///   `X-Tapwire-Alert-Id` header so a receiver can drop it.
/// - Never blocks ingestion: its own thread and its own database connection; it reads only the
///   rollups. A receiver that is down only delays messages (retried forever with capped backoff,
///   `WebhookRetryPolicy`).
public final class MismatchNotifier: Sendable {
    public struct Options: Sendable, Equatable {
        /// How often findings are looked for.
        public var scanSeconds: Double = 30
        /// How often due deliveries are looked for.
        public var deliverySeconds: Double = 1
        /// How far back a scan looks: findings that first appeared while every collector was down
        /// for less than this are still announced.
        public var lookbackSeconds: Double = 7 * 86_400
        /// Only findings at or above this are announced (info ones never page anyone).
        public var minimumSeverity: MismatchSeverity = .warning
        public var requestTimeoutSeconds: Double = 10
        public var retry = WebhookRetryPolicy()
        /// Messages per delivery round.
        public var batchSize = 20
        public init() {}

        /// Longer than a request can take, so a live holder never loses its lease mid-send.
        var leaseSeconds: Double { requestTimeoutSeconds * 3 + 5 }
    }

    private let webhookURL: URL
    private let databaseURL: String
    private let options: Options
    private let metrics: MetricsRegistry
    private let logger: Logger
    /// The lease owner: unique per process and start.
    private let owner: String
    private let background = BackgroundLoop(name: "tapwire-alerts")

    public init(webhookURL: String, databaseURL: String, options: Options = Options(), metrics: MetricsRegistry, logger: Logger) throws(APIError) {
        guard let url = URL(string: webhookURL), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https", url.host != nil else {
            throw APIError(.badRequest, "TAPWIRE_ALERT_WEBHOOK_URL must be an http or https URL")
        }
        self.webhookURL = url
        self.databaseURL = databaseURL
        self.options = options
        self.metrics = metrics
        self.logger = logger
        var rng = SystemRandomNumberGenerator()
        owner = "\(ProcessInfo.processInfo.hostName)-\(ProcessInfo.processInfo.processIdentifier)-\(String(rng.next(), radix: 36))"
        MismatchMetrics.declare(in: metrics)
    }

    /// The collector's notifier: started when TAPWIRE_ALERT_WEBHOOK_URL is set, else nil.
    public static func startIfConfigured(_ services: CollectorServices) throws(APIError) -> MismatchNotifier? {
        guard let url = services.configuration.alertWebhookURL else { return nil }
        let notifier = try MismatchNotifier(webhookURL: url, databaseURL: services.configuration.databaseURL,
                                            options: services.configuration.alertOptions, metrics: services.metrics, logger: services.logger)
        notifier.start()
        return notifier
    }

    public func start() {
        background.start { [self] in loop() }
    }

    /// Stops after the delivery in flight, if any (bounded by the request timeout).
    public func stop() {
        background.stop()
    }

    private func loop() {
        var connection: PostgresConnection?
        var nextScan = monotonicNanoseconds()
        var rng = SystemRandomNumberGenerator()
        while background.isRunning {
            do throws(DatabaseError) {
                if connection == nil || !(connection!.isUsable) {
                    connection?.close()
                    connection = try PostgresConnection(url: databaseURL, applicationName: "tapwire-alerts")
                }
                let db = connection!
                if monotonicNanoseconds() >= nextScan {
                    try scan(on: db)
                    nextScan = monotonicNanoseconds() + UInt64(options.scanSeconds * 1e9)
                }
                try deliver(on: db, rng: &rng)
            } catch {
                logger.log(.warning, "mismatch alerts: database error", error.logFields)
                connection?.close()
                connection = nil
            }
            background.pause(seconds: options.deliverySeconds)
        }
        connection?.close()
    }

    /// Claims every finding not announced before. Safe to run on any number of collectors.
    func scan(on connection: PostgresConnection) throws(DatabaseError) {
        let now = Timestamp.now
        let since = now.adding(seconds: -options.lookbackSeconds)
        let store = MismatchStore()
        for app in try store.activeApps(since: since, on: connection) {
            let findings = try store.versionFindings(appId: app.appId, since: since, until: now.adding(seconds: 1), on: connection)
                .filter { $0.severity >= options.minimumSeverity }
            let queued = try store.enqueue(appId: app.appId, appName: app.name, findings: findings, on: connection)
            if !queued.isEmpty { logger.info("mismatch alerts queued", ["app": .string(app.name), "count": .of(queued.count)]) }
        }
        metrics.set(MismatchMetrics.alertsPending, [], to: Double(try store.alertCounts(on: connection)["pending"] ?? 0))
    }

    private func deliver(on connection: PostgresConnection, rng: inout SystemRandomNumberGenerator) throws(DatabaseError) {
        let store = MismatchStore()
        while background.isRunning {
            let leased = try store.lease(owner: owner, leaseSeconds: options.leaseSeconds, limit: options.batchSize, on: connection)
            if leased.isEmpty { return }
            for alert in leased {
                let outcome = post(alert)
                let decision = options.retry.decide(attempts: alert.attempts, outcome: outcome, using: &rng)
                var reason: String?
                switch outcome {
                case .delivered: reason = nil
                case .transientFailure(_, _, let r), .rejected(_, let r): reason = r
                }
                try store.settle(alert, owner: owner, decision: decision, error: reason, on: connection)
                switch decision {
                case .markSent: metrics.increment(MismatchMetrics.alerts, ["sent"])
                case .retry(let after):
                    metrics.increment(MismatchMetrics.alerts, ["retry"])
                    logger.warning("mismatch webhook failed; will retry", ["attempt": .of(alert.attempts), "retry_in_s": .double(after),
                                                                          "reason": .string(reason ?? "")])
                case .giveUp:
                    metrics.increment(MismatchMetrics.alerts, ["failed"])
                    logger.error("mismatch webhook refused the message; giving up", ["attempts": .of(alert.attempts),
                                                                                    "reason": .string(reason ?? "")])
                }
            }
            // A receiver that is failing: do not hammer it with the rest of the queue now.
            if leased.count < options.batchSize { return }
        }
    }

    /// One POST, synchronously on this thread (never an HTTP or database thread of ingestion).
    private func post(_ alert: MismatchStore.LeasedAlert) -> WebhookOutcome {
        var request = URLRequest(url: webhookURL, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: options.requestTimeoutSeconds)
        request.httpMethod = "POST"
        request.httpBody = Data(alert.payload.utf8)
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue(alert.key.description, forHTTPHeaderField: "X-Tapwire-Alert-Id")
        request.setValue("tapwire", forHTTPHeaderField: "User-Agent")
        let done = DispatchSemaphore(value: 0)
        let box = Mutex<WebhookOutcome?>(nil)
        let task = URLSession.shared.dataTask(with: request) { _, response, error in
            let outcome: WebhookOutcome
            if let http = response as? HTTPURLResponse {
                let retryAfter = (http.value(forHTTPHeaderField: "Retry-After")).flatMap { Double($0) }
                outcome = WebhookOutcome.classify(status: http.statusCode, retryAfterSeconds: retryAfter)
            } else {
                outcome = .transientFailure(status: nil, retryAfterSeconds: nil, reason: error.map { "\(type(of: $0)) \(($0 as NSError).code)" } ?? "no response")
            }
            box.withLock { $0 = outcome }
            done.signal()
        }
        task.resume()
        if done.wait(timeout: .now() + options.requestTimeoutSeconds + 2) == .timedOut {
            task.cancel()
            return .transientFailure(status: nil, retryAfterSeconds: nil, reason: "timed out")
        }
        return box.withLock { $0 } ?? .transientFailure(status: nil, retryAfterSeconds: nil, reason: "no response")
    }
}
