import Foundation
import TapwireCore
import TapwireLifecycle
import TapwireReport
import TapwireStore

/// The collector's background check of every rule family in `FindingFamilies`, each at its
/// cadence: a continuous family every `scanSeconds` (category mismatches), an hourly one once an
/// hour, as of the hour that ended `regressionDelaySeconds` ago, so the hour's batches have
/// arrived (the release-regression look, stored once for every collector and reader of the
/// current look: RegressionLookStore). Each scan sets the active findings in /metrics
/// (`FindingMetrics`); with TAPWIRE_ALERT_WEBHOOK_URL set, each new finding is queued in the
/// outbox and posted to the webhook once. It names no family.
///
/// - Exactly once across restarts and collectors: a finding is claimed by inserting its key into
///   the `finding_alerts` outbox (the primary key is the claim); delivery leases the row, and
///   it is marked sent only after a 2xx. The one gap left is a crash between the receiver's 2xx
///   and that update; the message is then sent again once the lease ends, with the same
///   `X-Tapwire-Alert-Id` header so a receiver can drop it.
/// - Never blocks ingestion: its own thread and its own database connection; it reads only the
///   rollups. A receiver that is down only delays messages (retried forever with capped backoff,
///   `WebhookRetryPolicy`).
public final class FindingMonitor: Service {
    public struct Options: Sendable, Equatable {
        /// How often a continuous family (category mismatches) is scanned.
        public var scanSeconds: Double = 30
        /// How often due deliveries are looked for.
        public var deliverySeconds: Double = 1
        /// How far back a mismatch scan looks: findings that first appeared while every collector
        /// was down for less than this are still announced.
        public var lookbackSeconds: Double = 7 * 86_400
        /// How long after an hour ends an hourly family's look of it is taken (the release-regression check's).
        public var regressionDelaySeconds: Double = 300
        /// Only findings at or above this are announced (info ones never page anyone).
        public var minimumSeverity: FindingSeverity = .warning
        public var requestTimeoutSeconds: Double = 10
        public var retry = WebhookRetryPolicy()
        /// Messages per delivery round.
        public var batchSize = 20
        public init() {}

        /// Longer than a request can take, so a live holder never loses its lease mid-send.
        var leaseSeconds: Double { requestTimeoutSeconds * 3 + 5 }
    }

    public let name = "findings-monitor"
    private let databaseURL: String
    private let options: Options
    /// The families a scan checks, made with that scan's fold.
    private let families: @Sendable (any ReadFold) -> [any FindingFamily]
    /// Each scan's fold, taken as the scan starts: the collector's shared fold, or its own.
    private let readFold: @Sendable () -> any ReadFold
    /// The webhook, or why its URL is refused (`run` throws it: the collector does not start).
    private let webhookSetup: Result<FindingWebhook?, APIError>
    private var webhook: FindingWebhook? { try? webhookSetup.get() }
    private let metrics: MetricsRegistry
    private let logger: Logger
    /// Where the monitor says it replaced a connection the server closed while it sat idle.
    private let watch: IdleConnectionWatch
    /// The lease owner: unique per process and start.
    private let owner: String
    private let background = BackgroundLoop(name: "tapwire-findings")
    private let stopping = ShutdownSignal()

    /// Checks `families`, by default every family with the mismatch lookback of `options`; posts
    /// new findings to `webhookURL` when there is one.
    public convenience init(databaseURL: String, options: Options = Options(), families: [any FindingFamily]? = nil,
                            webhookURL: String?, metrics: MetricsRegistry, logger: Logger) {
        self.init(databaseURL: databaseURL, options: options, families: { fold in
            families ?? FindingFamilies.all(FindingsConfiguration(mismatchLookbackSeconds: options.lookbackSeconds, fold: fold))
        }, readFold: { OwnFold() }, webhookURL: webhookURL, metrics: metrics, logger: logger)
    }

    /// `families` made once per scan with `readFold()`, so the scan's families share one fold
    /// (the collector's: they wait for its background fold rather than fold themselves).
    public init(databaseURL: String, options: Options = Options(), families: @escaping @Sendable (any ReadFold) -> [any FindingFamily],
                readFold: @escaping @Sendable () -> any ReadFold, webhookURL: String?, metrics: MetricsRegistry, logger: Logger,
                watch: IdleConnectionWatch? = nil) {
        self.watch = watch ?? IdleConnectionWatch(logger: logger)
        webhookSetup = Result { () throws(APIError) in
            try webhookURL.map { (url) throws(APIError) in try FindingWebhook(url: url, requestTimeoutSeconds: options.requestTimeoutSeconds) }
        }
        self.databaseURL = databaseURL
        self.options = options
        self.families = families
        self.readFold = readFold
        self.metrics = metrics
        self.logger = logger
        var rng = SystemRandomNumberGenerator()
        owner = "\(ProcessInfo.processInfo.hostName)-\(ProcessInfo.processInfo.processIdentifier)-\(String(rng.next(), radix: 36))"
        FindingMetrics.declare(in: metrics)
    }

    /// Scans and delivers until shut down; then stops after the scan or delivery in flight, if any
    /// (a delivery is bounded by the request timeout). Throws when the webhook's URL is refused.
    public func run(ready: @escaping @Sendable () -> Void) throws {
        _ = try webhookSetup.get()
        background.run(ready: ready, until: stopping) { [self] _ in loop() }
    }

    public func shutdown() { stopping.raise() }

    private func loop() {
        // Closed by the server while idle since the last pass (idle_session_timeout, a pooler's,
        // a restart): replaced before the scan would fail on it.
        var connection = LoopConnection(name: "tapwire-findings", watch: watch) { [databaseURL] () throws(DatabaseError) in
            try PostgresConnection(url: databaseURL, applicationName: "tapwire-findings", serverTimeouts: .off)
        }
        // When each continuous family is next due (monotonic), and the hour each hourly family last looked at.
        var nextScan: [String: UInt64] = [:]
        var lastLook: [String: Int64] = [:]
        var rng = SystemRandomNumberGenerator()
        while background.isRunning {
            do throws(DatabaseError) {
                let db = try connection.ready()
                // One fold for the families due in this pass, its ticket taken now.
                for family in families(readFold()) {
                    switch family.cadence {
                    case .continuous:
                        guard monotonicNanoseconds() >= nextScan[family.name, default: 0] else { continue }
                        try check(family, at: .now, on: db)
                        nextScan[family.name] = monotonicNanoseconds() + UInt64(options.scanSeconds * 1e9)
                    case .hourly:
                        let look = RollupDeltas.floor(Timestamp.now.adding(seconds: -options.regressionDelaySeconds).microseconds,
                                                      RollupDeltas.microsecondsPerHour)
                        guard look != lastLook[family.name] else { continue }
                        try check(family, at: Timestamp(microseconds: look), on: db)
                        lastLook[family.name] = look
                    }
                }
                if webhook != nil { try deliver(on: db, rng: &rng) }
            } catch {
                logger.log(.warning, "findings: database error", error.logFields)
                connection.close()
            }
            background.pause(seconds: options.deliverySeconds)
        }
        connection.close()
    }

    /// One scan of a family as of `instant`: the findings of every app it looks at, published
    /// app by app. Safe to run on any number of collectors (the outbox claims each key once; an
    /// hourly look is stored once).
    func check(_ family: any FindingFamily, at instant: Timestamp, on connection: PostgresConnection) throws(DatabaseError) {
        for app in try family.appsToScan(at: instant, on: connection) {
            try publish(try family.scan(appId: app.appId, at: instant, on: connection), family: family, app: app, on: connection)
        }
        metrics.increment(FindingMetrics.checks, [family.name])
    }

    private func publish(_ findings: [Finding], family: any FindingFamily, app: (appId: Int64, name: String),
                         on connection: PostgresConnection) throws(DatabaseError) {
        FindingMetrics.setActive(findings, app: app.name, family: family, in: metrics)
        guard webhook != nil else { return }
        let announced = findings.filter { $0.severity >= options.minimumSeverity }
        let outbox = FindingOutbox()
        let queued = try outbox.enqueue(appId: app.appId, FindingMessages.outbox(appId: app.appId, app: app.name, findings: announced, family: family),
                                        on: connection)
        if !queued.isEmpty {
            logger.info("findings queued for the webhook", ["app": .string(app.name), "family": .string(family.name), "count": .of(queued.count)])
        }
        metrics.set(FindingMetrics.outboxPending, [], to: Double(try outbox.counts(on: connection)["pending"] ?? 0))
    }

    private func deliver(on connection: PostgresConnection, rng: inout SystemRandomNumberGenerator) throws(DatabaseError) {
        guard let webhook else { return }
        let outbox = FindingOutbox()
        while background.isRunning {
            let leased = try outbox.lease(owner: owner, leaseSeconds: options.leaseSeconds, limit: options.batchSize, on: connection)
            if leased.isEmpty { return }
            for message in leased {
                let outcome = webhook.post(message)
                let decision = options.retry.decide(attempts: message.attempts, outcome: outcome, using: &rng)
                var reason: String?
                switch outcome {
                case .delivered: reason = nil
                case .transientFailure(_, _, let r), .rejected(_, let r): reason = r
                }
                try outbox.settle(message, owner: owner, decision: decision, error: reason, on: connection)
                switch decision {
                case .markSent: metrics.increment(FindingMetrics.webhook, ["sent"])
                case .retry(let after):
                    metrics.increment(FindingMetrics.webhook, ["retry"])
                    logger.warning("findings webhook failed; will retry", ["attempt": .of(message.attempts), "retry_in_s": .double(after),
                                                                          "reason": .string(reason ?? "")])
                case .giveUp:
                    metrics.increment(FindingMetrics.webhook, ["failed"])
                    logger.error("findings webhook refused the message; giving up", ["attempts": .of(message.attempts),
                                                                                    "reason": .string(reason ?? "")])
                }
            }
            // A receiver that is failing: do not hammer it with the rest of the queue now.
            if leased.count < options.batchSize { return }
        }
    }
}
