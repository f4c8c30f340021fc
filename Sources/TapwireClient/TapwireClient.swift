import Foundation
import TapwireZlib

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
