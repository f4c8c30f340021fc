import Foundation
import Testing
@testable import TapwireClient

/// Conversions, the install id and the remembered tap: checked where the app calls, kept on disk
/// beside the queue, and sent over real HTTP on loopback (URLSession → FakeCollector).
@Suite(.serialized) struct ConversionTests {
    static let start = Date(timeIntervalSince1970: 1_796_119_200)  // 2026-12-01T10:00:00Z

    static func configuration(_ dir: URL, _ url: URL = URL(string: "http://127.0.0.1:9")!, deviceId: String? = nil,
                              installId: InstallIdPolicy = .generated, installIdDirectory: URL? = nil,
                              directWindow: Double = 3600) -> TapwireConfiguration {
        TapwireConfiguration(writeKey: "wk_test", endpoint: url, queueDirectory: dir,
                             device: DeviceInfo(appVersion: "3.2.1", platform: "iOS", deviceId: deviceId),
                             retry: ClientTests.fastRetry, installId: installId, installIdDirectory: installIdDirectory,
                             directWindow: directWindow)
    }

    static func tap(_ notificationId: String, action: String = SystemActionIdentifier.open) -> NotificationResponseValues {
        NotificationResponseValues(actionIdentifier: action, notificationId: notificationId, deliveryDate: start,
                                   content: NotificationContentValues(categoryIdentifier: "offer"))
    }

    /// The events of every request the collector got, with the request's context deviceId.
    static func sent(_ collector: FakeCollector) -> [(deviceId: String?, events: [[String: Any]])] {
        collector.server.requests.filter { $0.path == "/v1/batch" }.compactMap { request in
            guard let body = request.json, let events = body["events"] as? [[String: Any]] else { return nil }
            return ((body["context"] as? [String: Any])?["deviceId"] as? String, events)
        }
    }

    // MARK: Checked at the call

    @Test func badConversionsThrowTheirCodeAndQueueNothing() throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let client = try TapwireClient(configuration: Self.configuration(dir))
        let cases: [(name: String, value: Double?, currency: String?, code: TapwireClientError.Code)] = [
            ("", nil, nil, .invalidConversionName),
            (String(repeating: "é", count: 129), nil, nil, .invalidConversionName),  // 258 bytes
            ("pur\u{0}chase", nil, nil, .invalidConversionName),
            ("purchase", -0.01, "EUR", .invalidConversionValue),
            ("purchase", 1_000_000_000.5, "EUR", .invalidConversionValue),
            ("purchase", .nan, "EUR", .invalidConversionValue),
            ("purchase", .infinity, "EUR", .invalidConversionValue),
            ("purchase", 12.5, nil, .invalidConversionValue),
            ("purchase", 12.5, "eur", .invalidCurrency),
            ("purchase", 12.5, "EURO", .invalidCurrency),
            ("purchase", 12.5, "E1R", .invalidCurrency),
            ("purchase", 12.5, "", .invalidCurrency),
            ("purchase", nil, "EUR", .invalidCurrency),
        ]
        for c in cases {
            do {
                try client.recordConversion(c.name, value: c.value, currency: c.currency)
                Issue.record("\(c) was accepted")
            } catch {
                #expect(error.code == c.code, "\(c): \(error)")
                #expect(!error.message.isEmpty)
            }
        }
        #expect(throws: TapwireClientError(.invalidNotificationId, "notificationId is 257 UTF-8 bytes; at most 256 are allowed")) {
            try client.recordConversion("signup", notificationId: String(repeating: "n", count: 257))
        }
        #expect(client.stats.count == 0)

        // The limits themselves are accepted, as the collector accepts them.
        try client.recordConversion(String(repeating: "é", count: 128))
        try client.recordConversion("purchase", value: 0, currency: "JPY")
        try client.recordConversion("purchase", value: 1_000_000_000, currency: "USD")
        try client.recordConversion("signup", notificationId: String(repeating: "n", count: 256))
        #expect(client.stats.count == 4)
    }

    @Test func theEventIsAConversionOnTheWire() throws {
        let id = TelemetryEventID(high: 0x0193_0000_0000_7000, low: 0x8000_0000_0000_0001)
        let event = try EventBuilder().conversion(name: "purchase", value: 12.5, currency: "EUR", notificationId: "apns-1",
                                                  id: id, at: Self.start)
        #expect(String(decoding: event.json.serializedBytes(), as: UTF8.self) ==
                #"{"eventId":"\#(id)","type":"conversion","timestamp":"2026-12-01T10:00:00.000Z","notificationId":"apns-1","name":"purchase","value":12.5,"currency":"EUR"}"#)
        let bare = try EventBuilder().conversion(name: "signup", value: nil, currency: nil, notificationId: nil, id: id, at: Self.start)
        #expect(String(decoding: bare.json.serializedBytes(), as: UTF8.self) ==
                #"{"eventId":"\#(id)","type":"conversion","timestamp":"2026-12-01T10:00:00.000Z","name":"signup"}"#)
    }

    @Test func aDecimalAmountIsSentAsItsDouble() async throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let collector = try FakeCollector()
        defer { collector.stop() }
        let client = try TapwireClient(configuration: Self.configuration(dir, collector.url))
        try client.recordConversion("purchase", value: Decimal(string: "19.99")!, currency: "EUR")
        try client.recordConversion("purchase", value: Decimal(string: "1234567.891")!, currency: "JPY")
        try client.recordConversion("purchase", value: Decimal(string: "0.1")!, currency: "USD")
        #expect(throws: TapwireClientError.self) { try client.recordConversion("purchase", value: Decimal.nan, currency: "EUR") }
        #expect(await client.flush().accepted == 3)
        let events = Self.sent(collector).flatMap(\.events)
        #expect(events.map { $0["value"] as? Double } == [19.99, 1234567.891, 0.1])
        #expect(events.map { $0["currency"] as? String } == ["EUR", "JPY", "USD"])
    }

    // MARK: The install id

    @Test func theInstallIdIsRandomKeptAcrossLaunchesAndSentAsTheContextDeviceId() async throws {
        let dir = temporaryDirectory()
        let other = temporaryDirectory()
        defer {
            try? FileManager.default.removeItem(at: dir)
            try? FileManager.default.removeItem(at: other)
        }
        let collector = try FakeCollector()
        defer { collector.stop() }
        let first = try TapwireClient(configuration: Self.configuration(dir, collector.url))
        let id = try #require(first.installId)
        let uuid = try #require(UUID(uuidString: id))
        #expect(id == id.lowercased())
        #expect(uuid.uuid.6 >> 4 == 4)  // version 4: random, derived from nothing on the device
        #expect(try String(contentsOf: dir.appendingPathComponent("install-id"), encoding: .utf8) == id)
        try first.recordConversion("signup")
        first.close()

        let relaunched = try TapwireClient(configuration: Self.configuration(dir, collector.url))
        #expect(relaunched.installId == id)
        try relaunched.recordConversion("purchase", value: 3, currency: "EUR")
        #expect(await relaunched.flush().accepted == 2)
        #expect(Self.sent(collector).map(\.deviceId) == [id])

        // Another installation (another directory) has its own.
        let elsewhere = try TapwireClient(configuration: Self.configuration(other, collector.url))
        #expect(elsewhere.installId != nil && elsewhere.installId != id)
    }

    @Test func resetStartsANewIdAndEventsRecordedBeforeKeepTheOld() async throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let collector = try FakeCollector()
        defer { collector.stop() }
        let client = try TapwireClient(configuration: Self.configuration(dir, collector.url))
        let old = try #require(client.installId)
        let before = try (0..<3).map { _ in try client.recordConversion("view") }
        #expect(try client.resetInstallId() == old)
        let fresh = try #require(client.installId)
        #expect(fresh != old)
        let after = try (0..<2).map { _ in try client.recordConversion("view") }
        // A second reset with nothing recorded under the second id: that id is never sent.
        #expect(try client.resetInstallId() == fresh)
        let third = try #require(client.installId)
        let last = try client.recordConversion("view")
        client.close()

        // A relaunch before anything was sent: each event still goes with the id it was recorded under.
        let relaunched = try TapwireClient(configuration: Self.configuration(dir, collector.url))
        #expect(relaunched.installId == third)
        let report = await relaunched.drain(timeout: 10)
        #expect(report.accepted == 6)
        #expect(report.remaining == 0)
        let batches = Self.sent(collector)
        #expect(batches.map(\.deviceId) == [old, fresh, third])
        #expect(batches.map { $0.events.compactMap { $0["eventId"] as? String } } ==
                [before.map(\.description), after.map(\.description), [last.description]])
        // Every epoch sent: the file holds only the current id.
        let epochs = try #require(InstallIdEpochs(persisted: [UInt8](try Data(contentsOf: dir.appendingPathComponent(InstallIdEpochs.fileName)))))
        #expect(epochs == InstallIdEpochs(current: third))
    }

    @Test func optingOutSendsNoIdAndWhatWasRecordedWithoutOneNeverGetsOne() async throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let collector = try FakeCollector()
        defer { collector.stop() }
        do {
            let client = try TapwireClient(configuration: Self.configuration(dir, collector.url))
            #expect(client.installId != nil)
            client.close()
        }
        let off = try TapwireClient(configuration: Self.configuration(dir, collector.url, installId: .off))
        #expect(off.installId == nil)
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("install-id").path))  // deleted, not kept
        #expect(try off.resetInstallId() == nil)
        let unidentified = try off.recordConversion("signup")
        off.close()

        let on = try TapwireClient(configuration: Self.configuration(dir, collector.url))
        let id = try #require(on.installId)
        let identified = try on.recordConversion("signup")
        #expect(await on.drain(timeout: 10).accepted == 2)
        let batches = Self.sent(collector)
        #expect(batches.map(\.deviceId) == [nil, id])
        #expect(batches.map { $0.events.compactMap { $0["eventId"] as? String } } == [[unidentified.description], [identified.description]])
    }

    @Test func theAppsOwnIdIsSentInsteadAndResetLeavesIt() async throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let collector = try FakeCollector()
        defer { collector.stop() }
        let client = try TapwireClient(configuration: Self.configuration(dir, collector.url, deviceId: "app-chosen-7"))
        #expect(client.installId == "app-chosen-7")
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("install-id").path))
        try client.recordResponse(Self.tap("apns-1"))
        #expect(client.rememberedTap != nil)
        #expect(try client.resetInstallId() == nil)
        #expect(client.rememberedTap == nil)  // the tap is forgotten all the same
        #expect(client.installId == "app-chosen-7")
        try client.recordConversion("signup")
        #expect(await client.flush().accepted == 2)
        #expect(Self.sent(collector).map(\.deviceId) == ["app-chosen-7"])

        let refused = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: refused) }
        for bad in [String(repeating: "x", count: 129), "a\u{0}b"] {
            do {
                _ = try TapwireClient(configuration: Self.configuration(refused, deviceId: bad))
                Issue.record("the deviceId \(bad.debugDescription) was accepted")
            } catch {
                #expect(error.code == .invalidDeviceId)
            }
        }
        _ = try TapwireClient(configuration: Self.configuration(refused, deviceId: String(repeating: "x", count: 128)))
    }

    @Test func anAppAndItsExtensionShareOneIdThroughTheInstallIdDirectory() throws {
        let shared = temporaryDirectory()
        let appQueue = temporaryDirectory()
        let extensionQueue = temporaryDirectory()
        defer { [shared, appQueue, extensionQueue].forEach { try? FileManager.default.removeItem(at: $0) } }
        let app = try TapwireClient(configuration: Self.configuration(appQueue, installIdDirectory: shared))
        let serviceExtension = try TapwireClient(configuration: Self.configuration(extensionQueue, installIdDirectory: shared))
        #expect(app.installId != nil)
        #expect(serviceExtension.installId == app.installId)
        #expect(!FileManager.default.fileExists(atPath: appQueue.appendingPathComponent("install-id").path))
        // After a reset in the app, the extension's next launch sends the new one.
        let old = try app.resetInstallId()
        #expect(old == serviceExtension.installId)
        serviceExtension.close()
        let relaunched = try TapwireClient(configuration: Self.configuration(extensionQueue, installIdDirectory: shared))
        #expect(relaunched.installId == app.installId)
        #expect(relaunched.installId != old)
    }

    @Test func epochsPersistAndEndBatchesWhereTheyEnd() throws {
        let ids = (1...6).map { TelemetryEventID(high: 0x0193_0000_0000_7000, low: 0x8000_0000_0000_0000 | UInt64($0)) }
        var epochs = InstallIdEpochs(current: "a")
        let same = epochs.switchTo("a", newestQueued: ids[0])
        let toB = epochs.switchTo("b", newestQueued: ids[1])
        let toNone = epochs.switchTo(nil, newestQueued: ids[3])
        let toC = epochs.switchTo("c", newestQueued: ids[3])  // nothing recorded under nil: no epoch of its own
        #expect([same, toB, toNone, toC] == [false, true, true, true])
        #expect(epochs.earlier == [.init(deviceId: "a", through: ids[1]), .init(deviceId: "b", through: ids[3])])
        #expect(InstallIdEpochs(persisted: epochs.persisted) == epochs)
        #expect(InstallIdEpochs(persisted: Array("{\"earlier\":[{\"through\":\"nope\"}]}".utf8)) == nil)

        var queue = Array(ids[0...5])
        func position(_ id: TelemetryEventID) -> Int? { queue.firstIndex(of: id) }
        var scope = epochs.batchScope(position: position)
        #expect(scope.deviceId == "a" && scope.maxEvents == 2 && !scope.changed)
        queue.removeFirst(2)  // acknowledged
        scope = epochs.batchScope(position: position)
        #expect(scope.deviceId == "b" && scope.maxEvents == 2 && scope.changed)
        queue.removeFirst(3)  // acknowledged, and one more
        scope = epochs.batchScope(position: position)
        #expect(scope.deviceId == "c" && scope.maxEvents == nil && scope.changed)
        #expect(epochs == InstallIdEpochs(current: "c"))
    }

    // MARK: The direct window

    @Test func aConversionWithinTheDirectWindowNamesTheTappedNotification() throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let now = Locked(Self.start)
        let client = try TapwireClient(configuration: Self.configuration(dir, directWindow: 3600), clock: { now.withLock { $0 } })
        func notificationIdOf(_ id: TelemetryEventID) throws -> String? {
            let records = try client.recorder.withLock { (state: inout TapwireClient.Recorder) throws(QueueError) -> [QueuedRecord] in
                try state.queue!.peek(maxEvents: 10_000, maxJSONBytes: 1 << 24)
            }
            let record = try #require(records.first { $0.eventId == id })
            let object = try JSONSerialization.jsonObject(with: Data(record.json)) as? [String: Any]
            return object?["notificationId"] as? String
        }
        func advance(_ seconds: Double) { now.withLock { $0 = $0.addingTimeInterval(seconds) } }

        #expect(try notificationIdOf(client.recordConversion("before-any-tap")) == nil)
        try client.recordResponse(Self.tap("apns-1"))
        #expect(client.rememberedTap == RememberedTap(notificationId: "apns-1", tappedAtMicros: Timestamp(Self.start).microseconds))
        advance(600)
        #expect(try notificationIdOf(client.recordConversion("purchase", value: 9.99, currency: "EUR")) == "apns-1")
        // The app may name another notification itself.
        #expect(try notificationIdOf(client.recordConversion("purchase", notificationId: "deep-link-9")) == "deep-link-9")
        // A dismissal is not a tap: the remembered one stays.
        try client.recordResponse(Self.tap("apns-2", action: SystemActionIdentifier.dismiss))
        #expect(try notificationIdOf(client.recordConversion("signup")) == "apns-1")
        // A registered action is a tap.
        try client.recordResponse(Self.tap("apns-3", action: "buy-now"))
        advance(3600)  // exactly the window after the tap: still within, as the collector's [t - W, t]
        #expect(try notificationIdOf(client.recordConversion("purchase")) == "apns-3")
        advance(0.001)
        #expect(try notificationIdOf(client.recordConversion("purchase")) == nil)
        // A clock set back before the tap names nothing.
        try client.recordResponse(Self.tap("apns-4"))
        advance(-60)
        #expect(try notificationIdOf(client.recordConversion("purchase")) == nil)

        // A window of 0 names only a conversion at the tap's very time.
        let zero = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: zero) }
        let never = try TapwireClient(configuration: Self.configuration(zero, directWindow: 0), clock: { now.withLock { $0 } })
        try never.recordResponse(Self.tap("apns-5"))
        advance(1)
        let late = try never.recordConversion("purchase")
        let records = try never.recorder.withLock { (state: inout TapwireClient.Recorder) throws(QueueError) -> [QueuedRecord] in
            try state.queue!.peek(maxEvents: 10, maxJSONBytes: 1 << 20)
        }
        #expect(records.last?.eventId == late)
        #expect(String(decoding: records.last!.json, as: UTF8.self).contains("notificationId") == false)
    }

    @Test func resetForgetsTheTap() throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let client = try TapwireClient(configuration: Self.configuration(dir))
        try client.recordResponse(Self.tap("apns-1"))
        #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent(RememberedTap.fileName).path))
        try client.resetInstallId()
        #expect(client.rememberedTap == nil)
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent(RememberedTap.fileName).path))
        client.close()
        #expect(try TapwireClient(configuration: Self.configuration(dir)).rememberedTap == nil)
    }

    /// A crash after the tap, before the purchase: the process dies without closing anything, and
    /// the next one sees only what is on disk. A copy of the directory taken while the first
    /// client is still open is exactly that (the lock file aside, which a dead process releases).
    @Test func theTapTheInstallIdAndTheConversionSurviveACrash() async throws {
        let dir = temporaryDirectory()
        let crashed = temporaryDirectory().appendingPathComponent("after-crash")
        defer {
            try? FileManager.default.removeItem(at: dir)
            try? FileManager.default.removeItem(at: crashed.deletingLastPathComponent())
        }
        let collector = try FakeCollector()
        defer { collector.stop() }
        let now = Locked(Self.start)
        let clock: @Sendable () -> Date = { now.withLock { $0 } }
        let first = try TapwireClient(configuration: Self.configuration(dir, collector.url), clock: clock)
        let old = try #require(first.installId)
        let tapId = try first.recordResponse(Self.tap("apns-77"))
        try FileManager.default.copyItem(at: dir, to: crashed)
        try FileManager.default.removeItem(at: crashed.appendingPathComponent("LOCK"))

        now.withLock { $0 = $0.addingTimeInterval(1200) }
        let second = try TapwireClient(configuration: Self.configuration(crashed, collector.url), clock: clock)
        #expect(second.installId == old)
        #expect(second.rememberedTap?.notificationId == "apns-77")
        let purchase = try second.recordConversion("purchase", value: 12.5, currency: "EUR")
        // Crash again, after the purchase, before any send.
        let again = crashed.deletingLastPathComponent().appendingPathComponent("after-second-crash")
        try FileManager.default.copyItem(at: crashed, to: again)
        try FileManager.default.removeItem(at: again.appendingPathComponent("LOCK"))
        let third = try TapwireClient(configuration: Self.configuration(again, collector.url), clock: clock)
        #expect(await third.drain(timeout: 10).accepted == 2)
        let batches = Self.sent(collector)
        #expect(batches.map(\.deviceId) == [old])
        let events = batches.flatMap(\.events)
        #expect(events.map { $0["eventId"] as? String } == [tapId.description, purchase.description])
        #expect(events.last?["notificationId"] as? String == "apns-77")
        #expect(events.last?["type"] as? String == "conversion")
        _ = first
    }

    @Test func aDamagedTapFileIsForgottenNotAnError() throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try Data("{\"notificationId\":".utf8).write(to: dir.appendingPathComponent(RememberedTap.fileName))
        try Data("not a uuid".utf8).write(to: dir.appendingPathComponent("install-id"))
        let client = try TapwireClient(configuration: Self.configuration(dir))
        #expect(client.rememberedTap == nil)
        let id = try #require(client.installId)
        #expect(UUID(uuidString: id) != nil)  // the damaged id was replaced
        #expect(try String(contentsOf: dir.appendingPathComponent("install-id"), encoding: .utf8) == id)
    }
}
