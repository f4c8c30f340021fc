import Foundation
import TapwireZlib

/// The SDK. Record from any thread or task (`record…` is synchronous and returns once the event
/// is durable; docs/SDK.md says what each event sends); `flush()` is serialised on one internal owner, so concurrent calls share one run.
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
        /// The install id of the events recorded now, and of those still queued from before a change.
        var epochs = InstallIdEpochs(current: nil)
        /// The last tap, for `recordConversion` (persisted in `RememberedTap.fileName`).
        var tap: RememberedTap?
    }

    /// Opens (and repairs) the queue in `configuration.queueDirectory`, and loads or makes the
    /// install id (`configuration.installId`) and the remembered tap kept beside it.
    public init(configuration: TapwireConfiguration, transport: any HTTPTransport = URLSessionTransport(),
                clock: @escaping @Sendable () -> Date = { Date() }) throws(TapwireClientError) {
        self.configuration = configuration
        self.clock = clock
        self.builder = EventBuilder(keys: configuration.userInfoKeys)
        if let id = configuration.device.deviceId, let problem = EventBuilder.identifierProblem(id, maxBytes: EventBuilder.maxDeviceIdBytes) {
            throw TapwireClientError(.invalidDeviceId, "DeviceInfo.deviceId \(problem); leave it nil to send the generated install id")
        }
        let queue: DiskQueue
        var state: Recorder
        do throws(QueueError) {
            queue = try DiskQueue(directory: configuration.queueDirectory, maxBytes: configuration.maxQueueBytes,
                                  durability: configuration.durability)
            state = Recorder(queue: queue)
            // What events recorded now are sent with: the app's id, else the generated one, else none.
            let id: String?
            if let chosen = configuration.device.deviceId {
                id = chosen
            } else if configuration.installId == .generated {
                id = try Self.installIdStore(configuration).loadOrCreate()
            } else {
                try Self.installIdStore(configuration).remove()
                id = nil
            }
            // No file yet (first launch, or a queue from before install ids): the queued events were
            // recorded under the app's id, if it set one.
            let epochsFile = configuration.queueDirectory.appendingPathComponent(InstallIdEpochs.fileName)
            let stored = DurableFile.read(epochsFile)
            state.epochs = stored.map { InstallIdEpochs(persisted: $0) ?? InstallIdEpochs(current: nil) }
                ?? InstallIdEpochs(current: configuration.device.deviceId)
            if state.epochs.switchTo(id, newestQueued: queue.newestEventId) || stored == nil {
                try DurableFile.replace(epochsFile, with: state.epochs.persisted, durability: configuration.durability)
            }
        } catch {
            throw TapwireClientError(error)
        }
        state.tap = DurableFile.read(configuration.queueDirectory.appendingPathComponent(RememberedTap.fileName))
            .flatMap(RememberedTap.init(persisted:))
        let recorder = Locked(state)
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
                               registeredCategories: Set<Bytewise<String>>? = nil) throws(TapwireClientError) -> TelemetryEventID {
        let registered = registeredCategories ?? self.registeredCategories
        return try append { id, time, _ throws(TapwireClientError) in
            builder.delivered(content, notificationId: notificationId, id: id, at: time, registeredCategories: registered)
        }
    }

    /// Records a response (`didReceive`). `registeredCategories` as for `recordDelivery`. A tap
    /// (any action but dismiss) with a notification id is remembered for `recordConversion`; a
    /// failure to keep it goes to `configuration.onError` (the response itself is recorded).
    @discardableResult
    public func recordResponse(_ response: NotificationResponseValues,
                               registeredCategories: Set<Bytewise<String>>? = nil) throws(TapwireClientError) -> TelemetryEventID {
        let registered = registeredCategories ?? self.registeredCategories
        let tapFile = configuration.queueDirectory.appendingPathComponent(RememberedTap.fileName)
        let durability = configuration.durability
        var failure: TapwireClientError?
        let id = try append { id, time, _ throws(TapwireClientError) in
            builder.response(response, id: id, at: time, registeredCategories: registered)
        } then: { state, event in
            guard let notificationId = event.notificationId, RememberedTap.isTap(actionIdentifier: response.actionIdentifier) else { return }
            let tap = RememberedTap(notificationId: notificationId, tappedAtMicros: event.timestampMicros)
            state.tap = tap
            do throws(QueueError) {
                try DurableFile.replace(tapFile, with: tap.persisted, durability: durability)
            } catch {
                failure = TapwireClientError(error)
            }
        }
        if let failure { configuration.onError?(failure) }
        return id
    }

    /// Records a conversion: an outcome the app counts (a purchase, a signup, a booking), checked
    /// here by the collector's rules, so a bad call throws at once (`invalidConversionName`,
    /// `invalidConversionValue`, `invalidCurrency`, `invalidNotificationId`) and nothing is queued.
    ///
    /// - Parameters:
    ///   - name: what was converted: not empty, at most 256 UTF-8 bytes.
    ///   - value: from 0 to 10⁹, with its `currency` (an ISO 4217 code such as `EUR`); a refund is
    ///     a conversion of its own name.
    ///   - notificationId: the notification that led to it, when the app knows it; nil: the
    ///     notification tapped last, when the tap was at most `configuration.directWindow` ago.
    @discardableResult
    public func recordConversion(_ name: String, value: Double? = nil, currency: String? = nil,
                                 notificationId: String? = nil) throws(TapwireClientError) -> TelemetryEventID {
        try EventBuilder.checkConversion(name: name, value: value, currency: currency)
        let window = configuration.directWindow
        return try append { id, time, state throws(TapwireClientError) in
            let named = notificationId ?? state.tap?.notificationId(forConversionAt: Timestamp(time).microseconds, window: window)
            return try builder.conversion(name: name, value: value, currency: currency, notificationId: named, id: id, at: time)
        }
    }

    /// `recordConversion` for a `Decimal` amount (StoreKit's `Product.price`), sent as the Double
    /// nearest its decimal digits (the collector stores a float8; 15 significant digits are exact).
    @discardableResult
    public func recordConversion(_ name: String, value: Decimal, currency: String,
                                 notificationId: String? = nil) throws(TapwireClientError) -> TelemetryEventID {
        // Through the digits, not NSDecimalNumber.doubleValue: that one is a rounding off on Linux
        // (19.99 became 19.990000000000002). `description` is locale-independent; NaN reads as nan.
        try recordConversion(name, value: Double(value.description) ?? .nan, currency: currency, notificationId: notificationId)
    }

    /// The id is made under the queue's lock, so queue order and id order agree. `then` runs under
    /// the same lock once the event is on disk.
    private func append(_ make: (TelemetryEventID, Date, Recorder) throws(TapwireClientError) -> TelemetryEvent,
                        then: (inout Recorder, TelemetryEvent) -> Void = { _, _ in }) throws(TapwireClientError) -> TelemetryEventID {
        let time = clock()
        let millis = UInt64(max(0, Timestamp(time).microseconds / 1000))
        return try recorder.withLock { (state: inout Recorder) throws(TapwireClientError) -> TelemetryEventID in
            guard let queue = state.queue else { throw TapwireClientError(.closed, "the client was closed") }
            let event = try make(state.generator.next(unixMilliseconds: millis), time, state)
            do throws(QueueError) {
                try queue.append(eventId: event.eventId, recordedAtMicros: Timestamp(time).microseconds, json: event.json.serializedBytes())
            } catch {
                throw TapwireClientError(error)
            }
            then(&state, event)
            return event.eventId
        }
    }

    // MARK: Install id

    /// The install id sent with the events recorded now: `device.deviceId` when the app set one,
    /// else the generated one; nil with `installId: .off`.
    public var installId: String? { recorder.withLock { $0.epochs.current } }

    /// The tap `recordConversion` would name now, if still within the direct window.
    public var rememberedTap: RememberedTap? { recorder.withLock { $0.tap } }

    /// Starts a new install id (on logout, or when the user asks to be forgotten) and forgets the
    /// remembered tap. Returns the id it replaces, for the request to forget it
    /// (`tapwire devices forget`); events recorded before the reset are still sent under it, and
    /// nothing links the two ids. With `device.deviceId` set the app owns the id: only the tap is
    /// forgotten, and nil is returned; with `installId: .off` there is none.
    @discardableResult
    public func resetInstallId() throws(TapwireClientError) -> String? {
        let store = Self.installIdStore(configuration)
        let directory = configuration.queueDirectory
        let durability = configuration.durability
        let ownsId = configuration.device.deviceId == nil && configuration.installId == .generated
        return try recorder.withLock { (state: inout Recorder) throws(TapwireClientError) -> String? in
            guard let queue = state.queue else { throw TapwireClientError(.closed, "the client was closed") }
            do throws(QueueError) {
                state.tap = nil
                try DurableFile.remove(directory.appendingPathComponent(RememberedTap.fileName), durability: durability)
                guard ownsId else { return nil }
                let previous = state.epochs.current
                let fresh = InstallIdStore.generate()
                var epochs = state.epochs
                _ = epochs.switchTo(fresh, newestQueued: queue.newestEventId)
                // The epochs first: a crash before the new id is kept leaves the old id current,
                // and the next launch switches back to it with nothing recorded under the new one.
                try DurableFile.replace(directory.appendingPathComponent(InstallIdEpochs.fileName), with: epochs.persisted,
                                        durability: durability)
                try store.write(fresh)
                state.epochs = epochs
                return previous
            } catch {
                throw TapwireClientError(error)
            }
        }
    }

    static func installIdStore(_ configuration: TapwireConfiguration) -> InstallIdStore {
        InstallIdStore(directory: configuration.installIdDirectory ?? configuration.queueDirectory, durability: configuration.durability)
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
    public var registeredCategories: Set<Bytewise<String>>? { categories.withLock { $0.identifiers } }

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
