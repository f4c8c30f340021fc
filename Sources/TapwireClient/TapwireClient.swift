import Foundation
import TapwireZlib

/// Everything the SDK needs, set once when the client is made.
public struct TapwireConfiguration: Sendable {
    /// The app's write key (it can only write, and only this app's data). Sent as the Basic-auth
    /// user name with an empty password.
    public var writeKey: String
    /// The collector's base URL, such as `https://collector.example.com`; `/v1/batch` and
    /// `/v1/categories` are appended.
    public var endpoint: URL
    /// Where the queue lives. One directory per process: the app and its Notification Service
    /// Extension each need their own (a second client on the same directory gets `queueLocked`).
    public var queueDirectory: URL
    public var device: DeviceInfo
    public var userInfoKeys: UserInfoKeys
    public var batch: BatchPolicy
    public var retry: RetryPolicy
    /// The queue never grows past this; the oldest events are dropped first and counted.
    public var maxQueueBytes: Int
    public var durability: QueueDurability
    /// Called (on the flushing task) with events the collector refused; they are gone from the queue.
    public var onRejected: (@Sendable ([RejectedEvent]) -> Void)?
    /// Called with failures that have no other way out (a failed background record, a refused manifest).
    public var onError: (@Sendable (TapwireClientError) -> Void)?

    public init(writeKey: String, endpoint: URL, queueDirectory: URL, device: DeviceInfo,
                userInfoKeys: UserInfoKeys = UserInfoKeys(), batch: BatchPolicy = BatchPolicy(),
                retry: RetryPolicy = RetryPolicy(), maxQueueBytes: Int = 8 << 20,
                durability: QueueDurability = .fsyncEveryRecord,
                onRejected: (@Sendable ([RejectedEvent]) -> Void)? = nil,
                onError: (@Sendable (TapwireClientError) -> Void)? = nil) {
        self.writeKey = writeKey
        self.endpoint = endpoint
        self.queueDirectory = queueDirectory
        self.device = device
        self.userInfoKeys = userInfoKeys
        self.batch = batch
        self.retry = retry
        self.maxQueueBytes = maxQueueBytes
        self.durability = durability
        self.onRejected = onRejected
        self.onError = onError
    }

    /// `Authorization: Basic base64(writeKey + ":")`.
    public var authorizationHeader: String { "Basic " + Data((writeKey + ":").utf8).base64EncodedString() }
}

/// An event that will never be stored, with the collector's (or the SDK's) reason.
public struct RejectedEvent: Sendable, Equatable, Hashable {
    public var eventId: TelemetryEventID
    public var code: String
    public var reason: String
}

public struct TapwireClientError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable {
        case queueIO = "queue_io"
        case queueLocked = "queue_locked"
        case eventTooLarge = "event_too_large"
        case compression = "compression_failed"
        case manifestRejected = "manifest_rejected"
        case closed = "client_closed"
    }
    public var code: Code
    public var message: String
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }
    public var description: String { "\(code.rawValue): \(message)" }

    init(_ error: QueueError) {
        switch error.code {
        case .io: self.init(.queueIO, error.message)
        case .locked: self.init(.queueLocked, error.message)
        case .recordTooLarge: self.init(.eventTooLarge, error.message)
        }
    }
}

/// What one flush did.
public struct FlushReport: Sendable, Equatable {
    /// HTTP requests made for events (not counting the manifest).
    public var requests = 0
    public var accepted = 0
    public var duplicates = 0
    public var rejected: [RejectedEvent] = []
    /// Events still queued when the flush ended.
    public var remaining = 0
    /// Set when the flush stopped to wait: the reason and how long until the next attempt.
    public var waitReason: WaitReason?
    public var retryIn: Double?

    public init() {}
}

public struct QueueStats: Sendable, Equatable {
    public var count: Int
    public var bytes: Int
    /// Events dropped oldest-first because the queue reached its size cap, over the queue's life.
    public var dropped: UInt64
    public var recovery: QueueRecovery
}

public enum ManifestSyncResult: Sendable, Equatable {
    /// Same content hash as the last successful sync: nothing was posted.
    case unchanged
    /// Posted and stored; `created` is false when the collector already had this content.
    case synced(contentHash: String, created: Bool?)
    /// Kept on disk; the next flush posts it again.
    case pending(reason: String)
    /// The collector refused it (4xx other than 408/429): it is not retried until it changes.
    case rejected(status: Int, message: String)
}

/// The SDK. Record from any thread or task (`record…` is synchronous and returns once the event
/// is durable); `flush()` is serialised on one internal owner, so concurrent calls share one run.
public final class TapwireClient: Sendable {
    public let configuration: TapwireConfiguration
    let recorder: Locked<Recorder>
    let uploader: Uploader
    /// Read by every `record…`, so recording never asks the system; see `RegisteredCategoryCache`.
    let categories: Locked<RegisteredCategoryCache>
    private let builder: EventBuilder
    private let clock: @Sendable () -> Date
    private let automatic = Locked<Task<Void, Never>?>(nil)

    struct Recorder {
        var queue: DiskQueue?
        var generator = UUIDv7Generator()
    }

    /// Opens (and repairs) the queue in `configuration.queueDirectory`.
    public init(configuration: TapwireConfiguration, transport: any HTTPTransport = URLSessionTransport(),
                clock: @escaping @Sendable () -> Date = { Date() }) throws(TapwireClientError) {
        self.configuration = configuration
        self.clock = clock
        self.builder = EventBuilder(keys: configuration.userInfoKeys)
        let queue: DiskQueue
        do throws(QueueError) {
            queue = try DiskQueue(directory: configuration.queueDirectory, maxBytes: configuration.maxQueueBytes,
                                  durability: configuration.durability)
        } catch {
            throw TapwireClientError(error)
        }
        let recorder = Locked(Recorder(queue: queue))
        self.recorder = recorder
        let persisted = try? Data(contentsOf: configuration.queueDirectory.appendingPathComponent(RegisteredCategoryCache.fileName))
        self.categories = Locked(RegisteredCategoryCache(appVersion: configuration.device.appVersion, persisted: persisted.map { [UInt8]($0) }))
        self.uploader = Uploader(configuration: configuration, transport: transport, recorder: recorder, clock: clock)
    }

    // MARK: Recording

    /// Records a delivery (Service Extension, or `willPresent`). Pass the final content, after
    /// attachments were added, so `hasMedia` says what the user saw. `registeredCategories`: nil
    /// uses the set the client keeps (`self.registeredCategories`).
    @discardableResult
    public func recordDelivery(_ content: NotificationContentValues, notificationId: String? = nil,
                               registeredCategories: Set<String>? = nil) throws(TapwireClientError) -> TelemetryEventID {
        let registered = registeredCategories ?? self.registeredCategories
        return try append { id, time in
            builder.delivered(content, notificationId: notificationId, id: id, at: time, registeredCategories: registered)
        }
    }

    /// Records a response (`didReceive`). `registeredCategories` as for `recordDelivery`.
    @discardableResult
    public func recordResponse(_ response: NotificationResponseValues,
                               registeredCategories: Set<String>? = nil) throws(TapwireClientError) -> TelemetryEventID {
        let registered = registeredCategories ?? self.registeredCategories
        return try append { id, time in
            builder.response(response, id: id, at: time, registeredCategories: registered)
        }
    }

    /// The id is made under the queue's lock, so queue order and id order agree.
    private func append(_ make: (TelemetryEventID, Date) -> TelemetryEvent) throws(TapwireClientError) -> TelemetryEventID {
        let time = clock()
        let millis = UInt64(max(0, Timestamp(time).microseconds / 1000))
        return try recorder.withLock { (state: inout Recorder) throws(TapwireClientError) -> TelemetryEventID in
            guard let queue = state.queue else { throw TapwireClientError(.closed, "the client was closed") }
            let event = make(state.generator.next(unixMilliseconds: millis), time)
            do throws(QueueError) {
                try queue.append(eventId: event.eventId, recordedAtMicros: Timestamp(time).microseconds, json: event.json.serializedBytes())
            } catch {
                throw TapwireClientError(error)
            }
            return event.eventId
        }
    }

    public var stats: QueueStats {
        recorder.withLock { state in
            guard let q = state.queue else { return QueueStats(count: 0, bytes: 0, dropped: 0, recovery: QueueRecovery()) }
            return QueueStats(count: q.count, bytes: q.liveBytes, dropped: q.droppedCount, recovery: q.recovery)
        }
    }

    // MARK: Sending

    /// Posts queued events (and a pending manifest) until the queue is empty or the retry policy
    /// says to wait. Concurrent calls join the flush in progress.
    @discardableResult
    public func flush() async -> FlushReport { await uploader.flush() }

    /// Flushes, sleeping through the retry policy's waits, until the queue is empty or `timeout`
    /// seconds have passed. For command-line tools, tests and `applicationDidEnterBackground`.
    @discardableResult
    public func drain(timeout: Double) async -> FlushReport {
        let deadline = ContinuousClock.now.advanced(by: .milliseconds(Int64(timeout * 1000)))
        var total = FlushReport()
        while true {
            let report = await flush()
            total.requests += report.requests
            total.accepted += report.accepted
            total.duplicates += report.duplicates
            total.rejected += report.rejected
            total.remaining = report.remaining
            total.waitReason = report.waitReason
            total.retryIn = report.retryIn
            guard report.remaining > 0, ContinuousClock.now < deadline, !Task.isCancelled else { return total }
            let wait = min(max(report.retryIn ?? 0.05, 0.01), Double((deadline - ContinuousClock.now).components.seconds) + 1)
            try? await Task.sleep(for: .milliseconds(Int64(wait * 1000)))
        }
    }

    /// Posts the manifest if its content hash differs from the last one synced (kept in the queue
    /// directory), so an unchanged set costs nothing on launch.
    @discardableResult
    public func syncManifest(_ manifest: CategoryManifest) async -> ManifestSyncResult {
        await uploader.syncManifest(manifest)
    }

    // MARK: Registered categories

    /// The identifiers of the categories registered on this device as last read (persisted across
    /// launches of this app version); nil while unknown.
    public var registeredCategories: Set<String>? { categories.withLock { $0.identifiers } }

    /// Keeps a fresh reading of the registered categories for `record…` and persists it in the
    /// queue directory when it changed. The Apple adapter calls this with what
    /// `getNotificationCategories` answered. A failed write goes to `configuration.onError`; the
    /// set is still used by this process.
    public func refreshRegisteredCategories(_ manifest: CategoryManifest) {
        let file = configuration.queueDirectory.appendingPathComponent(RegisteredCategoryCache.fileName)
        // Written under the lock so two refreshes cannot persist out of order; a record waits at
        // most for this small write, never for the system.
        let failure: String? = categories.withLock { cache in
            guard let bytes = cache.refresh(manifest) else { return nil }
            do {
                try Data(bytes).write(to: file, options: .atomic)
                return nil
            } catch {
                return "cannot write \(file.path): \(error)"
            }
        }
        if let failure { configuration.onError?(TapwireClientError(.queueIO, failure)) }
    }

    /// A fresh reading of the registered categories: kept for `record…` (`refreshRegisteredCategories`)
    /// and posted to the collector if its content changed (`syncManifest`).
    @discardableResult
    public func syncCategories(_ manifest: CategoryManifest) async -> ManifestSyncResult {
        refreshRegisteredCategories(manifest)
        return await syncManifest(manifest)
    }

    /// Checks every `interval` seconds whether a batch is due (`BatchPolicy`) and flushes it.
    public func startAutomaticFlushing(interval: Double = 5) {
        let policy = configuration.batch
        automatic.withLock { task in
            task?.cancel()
            task = Task { [weak self] in
                while !Task.isCancelled {
                    try? await Task.sleep(for: .milliseconds(Int64(max(0.01, interval) * 1000)))
                    guard let self else { return }
                    let now = Timestamp(self.clock()).microseconds
                    let (count, bytes, oldest) = self.recorder.withLock { state in
                        (state.queue?.count ?? 0, state.queue?.liveBytes ?? 0, state.queue?.oldestRecordedAtMicros)
                    }
                    let age = oldest.map { Double(now - $0) / 1_000_000 }
                    if policy.isDue(count: count, bytes: bytes, oldestAge: age) { await self.flush() }
                }
            }
        }
    }

    public func stopAutomaticFlushing() {
        automatic.withLock { task in
            task?.cancel()
            task = nil
        }
    }

    /// Stops automatic flushing and releases the queue's files and lock.
    public func close() {
        stopAutomaticFlushing()
        recorder.withLock { state in
            state.queue?.close()
            state.queue = nil
        }
    }

    deinit { automatic.withLock { $0?.cancel() } }
}

/// The single owner of sending: the retry state machine, the wait deadline and the manifest
/// files live here, and one flush runs at a time.
actor Uploader {
    let configuration: TapwireConfiguration
    let transport: any HTTPTransport
    let recorder: Locked<TapwireClient.Recorder>
    let clock: @Sendable () -> Date
    private var machine: DeliveryStateMachine
    private var random = SystemRandomNumberGenerator()
    private var notBefore: Date?
    private var running: Task<FlushReport, Never>?

    init(configuration: TapwireConfiguration, transport: any HTTPTransport, recorder: Locked<TapwireClient.Recorder>,
         clock: @escaping @Sendable () -> Date) {
        self.configuration = configuration
        self.transport = transport
        self.recorder = recorder
        self.clock = clock
        self.machine = DeliveryStateMachine(policy: configuration.retry, maxBatch: configuration.batch.maxEvents)
    }

    var batchURL: URL { configuration.endpoint.appendingPathComponent("v1").appendingPathComponent("batch") }
    var categoriesURL: URL { configuration.endpoint.appendingPathComponent("v1").appendingPathComponent("categories") }
    var syncedHashURL: URL { configuration.queueDirectory.appendingPathComponent("manifest-synced") }
    var pendingManifestURL: URL { configuration.queueDirectory.appendingPathComponent("manifest-pending.json") }

    func flush() async -> FlushReport {
        if let running { return await running.value }
        let task = Task { await self.run() }
        running = task
        let report = await task.value
        running = nil
        return report
    }

    private func remaining() -> Int { recorder.withLock { $0.queue?.count ?? 0 } }

    private func run() async -> FlushReport {
        var report = FlushReport()
        if let notBefore, clock() < notBefore {
            report.remaining = remaining()
            report.retryIn = notBefore.timeIntervalSince(clock())
            return report
        }
        notBefore = nil
        _ = await postPendingManifest()

        while !Task.isCancelled {
            let limit = min(machine.batchLimit, configuration.batch.maxEvents)
            let maxBytes = configuration.batch.maxBytes
            let batch: [QueuedRecord]
            do {
                batch = try recorder.withLock { (state: inout TapwireClient.Recorder) throws(QueueError) -> [QueuedRecord] in
                    try state.queue?.peek(maxEvents: limit, maxJSONBytes: maxBytes) ?? []
                }
            } catch {
                configuration.onError?(TapwireClientError(error))
                break
            }
            if batch.isEmpty { break }

            let outcome = await send(batch)
            if case .transportFailure = outcome {} else { report.requests += 1 }
            if case .status(413, _, "client_body_too_large") = outcome { report.requests -= 1 }
            switch machine.next(after: outcome, batchCount: batch.count, using: &random) {
            case .acknowledge(let count, let rejected):
                if case .acknowledged(let ack) = outcome {
                    report.accepted += ack.accepted
                    report.duplicates += ack.duplicates
                }
                let refused = rejected.map { RejectedEvent(eventId: batch[$0.index].eventId, code: $0.code, reason: $0.reason) }
                acknowledge(batch[count - 1].sequence)
                if !refused.isEmpty {
                    report.rejected += refused
                    configuration.onRejected?(refused)
                }
            case .split, .retryUncompressed:
                continue
            case .dropPoison(let rejection):
                let refused = [RejectedEvent(eventId: batch[0].eventId, code: rejection.code, reason: rejection.reason)]
                acknowledge(batch[0].sequence)
                report.rejected += refused
                configuration.onRejected?(refused)
            case .wait(let seconds, let reason):
                notBefore = clock().addingTimeInterval(seconds)
                report.waitReason = reason
                report.retryIn = seconds
                report.remaining = remaining()
                return report
            }
        }
        report.remaining = remaining()
        return report
    }

    private func acknowledge(_ sequence: UInt64) {
        do {
            try recorder.withLock { (state: inout TapwireClient.Recorder) throws(QueueError) in
                try state.queue?.acknowledge(through: sequence)
            }
        } catch {
            // The events stay queued and are sent again; the collector deduplicates them by id.
            configuration.onError?(TapwireClientError(error))
        }
    }

    /// One attempt. The body is built now, so `sentAt` is this attempt's time.
    private func send(_ batch: [QueuedRecord]) async -> SendOutcome {
        let body = BatchBody.encode(sentAtMicros: Timestamp(clock()).microseconds, device: configuration.device,
                                    events: batch.map(\.json))
        var headers = ["Content-Type": "application/json", "Authorization": configuration.authorizationHeader]
        var payload = body
        if machine.compress {
            do {
                payload = try Zlib.compress(body, format: .gzip)
                headers["Content-Encoding"] = "gzip"
            } catch {
                configuration.onError?(TapwireClientError(.compression, "gzip failed (\(error)); sending uncompressed"))
            }
        }
        // The collector answers 413 past this without reading the body; split before sending.
        if payload.count > configuration.batch.maxCompressedBytes {
            return .status(413, retryAfter: nil, errorCode: "client_body_too_large")
        }
        do {
            let response = try await transport.send(TransportRequest(url: batchURL, headers: headers, body: payload))
            return CollectorAnswer.outcome(of: response, now: clock())
        } catch {
            return .transportFailure
        }
    }

    // MARK: Manifest

    func syncManifest(_ manifest: CategoryManifest) async -> ManifestSyncResult {
        let hash = manifest.contentHash
        if let synced = try? String(contentsOf: syncedHashURL, encoding: .utf8), synced == hash { return .unchanged }
        let body = manifest.canonicalJSON.serializedBytes()
        do {
            try Data(body).write(to: pendingManifestURL, options: .atomic)
        } catch {
            return .pending(reason: "cannot write \(pendingManifestURL.path): \(error)")
        }
        return await postPendingManifest() ?? .unchanged
    }

    /// Posts the manifest kept on disk, if any. On success its hash becomes the synced one; on a
    /// transient failure it stays for the next flush. Losing these small files only costs a re-post.
    private func postPendingManifest() async -> ManifestSyncResult? {
        guard let data = try? Data(contentsOf: pendingManifestURL) else { return nil }
        let body = [UInt8](data)
        let hash = SHA256.hex(body)
        var compress = machine.compress
        var response: TransportResponse
        repeat {
            var headers = ["Content-Type": "application/json", "Authorization": configuration.authorizationHeader]
            var payload = body
            if compress, let compressed = try? Zlib.compress(body, format: .gzip) {
                payload = compressed
                headers["Content-Encoding"] = "gzip"
            }
            do {
                response = try await transport.send(TransportRequest(url: categoriesURL, headers: headers, body: payload))
            } catch {
                return .pending(reason: "network error: \(error)")
            }
            // A collector that refuses gzip gets the manifest once more, uncompressed.
            if response.status == 415 && compress { compress = false } else { break }
        } while true
        switch response.status {
        case 200, 201:
            try? Data(hash.utf8).write(to: syncedHashURL, options: .atomic)
            try? FileManager.default.removeItem(at: pendingManifestURL)
            return .synced(contentHash: hash, created: CollectorAnswer.manifest(response)?.created)
        case 400, 413, 422:
            break
        default:
            // Auth, rate limits, outages: not the manifest's fault, so it stays for the next flush.
            return .pending(reason: "the collector answered \(response.status)")
        }
        let message = CollectorAnswer.errorMessage(response) ?? "status \(response.status)"
        try? FileManager.default.removeItem(at: pendingManifestURL)
        configuration.onError?(TapwireClientError(.manifestRejected, "the collector refused the category manifest (\(response.status)): \(message)"))
        return .rejected(status: response.status, message: message)
    }
}
