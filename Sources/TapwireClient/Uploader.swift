import Foundation
import TapwireZlib

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
    var epochsURL: URL { configuration.queueDirectory.appendingPathComponent(InstallIdEpochs.fileName) }

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
            let deviceId: String?
            do {
                (batch, deviceId) = try recorder.withLock { (state: inout TapwireClient.Recorder) throws(QueueError) -> ([QueuedRecord], String?) in
                    guard let queue = state.queue else { return ([], nil) }
                    // One install id per batch: the one the oldest events were recorded under.
                    let scope = state.epochs.batchScope(position: queue.position(of:))
                    if scope.changed {
                        try DurableFile.replace(epochsURL, with: state.epochs.persisted, durability: configuration.durability)
                    }
                    return (try queue.peek(maxEvents: min(limit, scope.maxEvents ?? limit), maxJSONBytes: maxBytes), scope.deviceId)
                }
            } catch {
                configuration.onError?(TapwireClientError(error))
                break
            }
            if batch.isEmpty { break }

            let outcome = await send(batch, deviceId: deviceId)
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
    private func send(_ batch: [QueuedRecord], deviceId: String?) async -> SendOutcome {
        var device = configuration.device
        device.deviceId = deviceId
        let body = BatchBody.encode(sentAtMicros: Timestamp(clock()).microseconds, device: device, events: batch.map(\.json))
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
