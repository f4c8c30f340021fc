import Foundation
import Testing
import TapwireCore
import TapwireTestSupport
@testable import TapwireClient
#if canImport(Glibc)
import Glibc
#endif

/// The SDK core against the real collector (in process, on loopback) and a real PostgreSQL.
/// (URLSession on Linux never completes a 401 carrying WWW-Authenticate under default challenge
/// handling; URLSessionTransport refuses challenges and reports the 401, see URLSessionTransport.swift.)
@Suite(.serialized)
struct CollectorEndToEndTests {
    static func client(_ dir: URL, port: Int, key: String, appVersion: String = "3.2.1") throws -> TapwireClient {
        try TapwireClient(configuration: TapwireConfiguration(
            writeKey: key, endpoint: URL(string: "http://127.0.0.1:\(port)")!, queueDirectory: dir,
            device: DeviceInfo(appVersion: appVersion, build: "412", platform: "iOS", osVersion: "18.1"),
            retry: RetryPolicy(baseDelay: 0.05, maxDelay: 0.5)))
    }

    @Test func eventsArriveWithTheirCategoriesActionsTextLengthsAndMedia() async throws {
        let collector = try TestCollector.start()
        defer { collector.stop() }
        let app = try collector.database.createApp()
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let client = try Self.client(dir, port: collector.port, key: app.writeKey.text)
        let registered: Set<Bytewise<String>> = ["message", "social_post"]
        let image = [AttachmentValues(typeIdentifier: "public.jpeg")]
        let rich = NotificationContentValues(categoryIdentifier: "message", attachments: image,
                                             userInfo: ["campaign": "winter-sale", "variant": "B", "media-url": "https://cdn/x.jpg"])
        let plain = NotificationContentValues(categoryIdentifier: "message", userInfo: ["campaign": "winter-sale", "variant": "A"])
        let unknown = NotificationContentValues(categoryIdentifier: "Message")
        let delivered = Date(timeIntervalSinceNow: -60)

        var expected: [String: (type: String, category: String, action: String?, length: Int?, media: Bool)] = [:]
        func note(_ id: TelemetryEventID, _ type: String, _ category: String, _ action: String?, _ length: Int?, _ media: Bool) {
            expected[id.description] = (type, category, action, length, media)
        }
        for i in 0..<10 {
            note(try client.recordDelivery(i < 6 ? rich : plain, notificationId: "apns-\(i)", registeredCategories: registered),
                 "delivered", "message", nil, nil, i < 6)
        }
        note(try client.recordDelivery(unknown, notificationId: "apns-u", registeredCategories: registered), "delivered", "Message", nil, nil, false)
        let reply = NotificationResponseValues(actionIdentifier: "reply", notificationId: "apns-0", deliveryDate: delivered,
                                               content: rich, userTextLength: NotificationResponseValues.textLength(of: "see you at 8 🎉"))
        note(try client.recordResponse(reply, registeredCategories: registered), "response", "message", "reply", 14, true)
        let open = NotificationResponseValues(actionIdentifier: SystemActionIdentifier.open, notificationId: "apns-7",
                                              deliveryDate: delivered, content: plain)
        note(try client.recordResponse(open, registeredCategories: registered), "response", "message", SystemActionIdentifier.open, nil, false)
        let like = NotificationResponseValues(actionIdentifier: "like", notificationId: "apns-s", deliveryDate: delivered,
                                              content: NotificationContentValues(categoryIdentifier: "social_post"))
        note(try client.recordResponse(like, registeredCategories: registered), "response", "social_post", "like", nil, false)

        let manifest = CategoryManifest(appVersion: "3.2.1", categories: [
            RegisteredCategory(identifier: "message", options: ["customDismissAction"], actions: [
                RegisteredAction(identifier: "reply", title: "Reply", options: ["foreground"], textInput: true)]),
            RegisteredCategory(identifier: "social_post", actions: [RegisteredAction(identifier: "like")]),
        ])
        guard case .synced(let hash, let created) = await client.syncManifest(manifest) else {
            Issue.record("the manifest must sync")
            return
        }
        #expect(created == true)
        #expect(await client.syncManifest(manifest) == .unchanged)

        let report = await client.drain(timeout: 30)
        #expect(report.remaining == 0)
        #expect(report.accepted == expected.count)
        #expect(report.rejected.isEmpty)

        // The collector's own hash of the manifest is the client's, so dedup agrees on both sides.
        let stored = try collector.database.query("SELECT encode(content_hash, 'hex'), app_version FROM manifests WHERE app_id = $1",
                                                  [String(app.appId)])
        #expect(stored.rows.count == 1)
        #expect(stored.rows.first?[0] == hash)
        #expect(stored.rows.first?[1] == "3.2.1")

        let rows = try collector.database.query("""
            SELECT event_id::text, type::text, category, action_identifier, user_text_length, has_media, media_types,
                   media_requested, category_registered, campaign, variant, delivered_at IS NOT NULL, app_version, sdk, platform
            FROM events WHERE app_id = $1
            """, [String(app.appId)]).rows
        #expect(rows.count == expected.count)
        for row in rows {
            guard let id = row[0], let want = expected[id] else {
                Issue.record("unexpected event \(row[0] ?? "nil")")
                continue
            }
            #expect(row[1] == want.type)
            #expect(row[2] == want.category)
            #expect(row[3] == want.action)
            #expect(row[4] == want.length.map(String.init))
            #expect(row[5] == (want.media ? "t" : "f"))
            #expect(row[6] == (want.media ? "1" : "0"))
            #expect(row[11] == (want.type == "response" ? "t" : "f"))
            #expect(row[12] == "3.2.1")
            #expect(row[13] == "tapwire-swift/1.0")
            #expect(row[14] == "iOS")
            if want.category == "Message" { #expect(row[8] == "f") } else { #expect(row[8] == "t") }
        }
        let campaigns = try collector.database.query(
            "SELECT campaign, variant, media_requested::text, count(*) FROM events WHERE app_id = $1 AND type = 'delivered' AND category = 'message' GROUP BY 1, 2, 3 ORDER BY 2",
            [String(app.appId)]).rows
        #expect(campaigns.map { $0.compactMap { $0 } } == [["winter-sale", "A", "false", "4"], ["winter-sale", "B", "true", "6"]])
    }

    /// A tap, then a purchase 20 minutes later: stored with the install id and the tapped
    /// notification, and credited by the collector's rule as direct to that notification.
    @Test func aConversionIsStoredWithTheInstallIdAndTheTappedNotification() async throws {
        // Folded only when the test says, so the credit is read after the one fold that makes it.
        let collector = try TestCollector.start { $0.rollupFoldMilliseconds = 3_600_000; $0.findingsMonitor = false }
        defer { collector.stop() }
        let app = try collector.database.createApp()
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let tappedAt = Date(timeIntervalSinceNow: -1800)
        let now = Locked(tappedAt)
        let client = try TapwireClient(configuration: TapwireConfiguration(
            writeKey: app.writeKey.text, endpoint: URL(string: "http://127.0.0.1:\(collector.port)")!, queueDirectory: dir,
            device: DeviceInfo(appVersion: "3.2.1", build: "412", platform: "iOS", osVersion: "18.1"),
            retry: RetryPolicy(baseDelay: 0.05, maxDelay: 0.5)), clock: { now.withLock { $0 } })
        let installId = try #require(client.installId)
        let offer = NotificationContentValues(categoryIdentifier: "offer", attachments: [AttachmentValues(typeIdentifier: "public.jpeg")])
        try client.recordDelivery(offer, notificationId: "apns-offer-1")
        try client.recordResponse(NotificationResponseValues(actionIdentifier: "buy-now", notificationId: "apns-offer-1",
                                                             deliveryDate: tappedAt, content: offer))
        now.withLock { $0 = $0.addingTimeInterval(1200) }
        let purchase = try client.recordConversion("purchase", value: 12.5, currency: "EUR")
        now.withLock { $0 = $0.addingTimeInterval(1) }
        let signup = try client.recordConversion("signup")
        let report = await client.drain(timeout: 30)
        #expect(report.accepted == 4)
        #expect(report.rejected.isEmpty)

        let rows = try collector.database.query("""
            SELECT event_id::text, type::text, device_id, notification_id, conversion_name, conversion_value::text, conversion_currency
            FROM events WHERE app_id = $1 ORDER BY event_id
            """, [String(app.appId)]).rows
        #expect(rows.count == 4)
        #expect(rows.allSatisfy { $0[2] == installId })
        #expect(rows.filter { $0[1] == "conversion" } == [
            [purchase.description, "conversion", installId, "apns-offer-1", "purchase", "12.5", "EUR"],
            [signup.description, "conversion", installId, "apns-offer-1", "signup", nil, nil],
        ])

        _ = try collector.database.query("SELECT tapwire_attribute_pending($1::bigint)", [String(app.appId)])
        let credits = try collector.database.query("""
            SELECT event_id::text, kind::text, device_id, notification_key, action_identifier, value::text, currency
            FROM conversion_credits WHERE app_id = $1 ORDER BY event_id
            """, [String(app.appId)]).rows
        #expect(credits == [
            [purchase.description, "1", installId, "apns-offer-1", "buy-now", "12.5", "EUR"],
            [signup.description, "1", installId, "apns-offer-1", "buy-now", "0", ""],
        ])
    }

    @Test func aBatchSentAgainLaterIsNeverDoubleCounted() async throws {
        let collector = try TestCollector.start()
        defer { collector.stop() }
        let app = try collector.database.createApp()
        let dir = temporaryDirectory()
        let copy = temporaryDirectory().appendingPathComponent("copy")
        defer {
            try? FileManager.default.removeItem(at: dir)
            try? FileManager.default.removeItem(at: copy)
        }
        do {
            let client = try Self.client(dir, port: collector.port, key: app.writeKey.text)
            for i in 0..<250 {
                try client.recordDelivery(NotificationContentValues(categoryIdentifier: "message"), notificationId: "n\(i)")
            }
            client.close()
        }
        // The same queue twice: as if the first answer had been lost after the collector stored it.
        try FileManager.default.copyItem(at: dir, to: copy)
        try FileManager.default.removeItem(at: copy.appendingPathComponent("LOCK"))
        let first = try Self.client(dir, port: collector.port, key: app.writeKey.text)
        let a = await first.drain(timeout: 30)
        let second = try Self.client(copy, port: collector.port, key: app.writeKey.text)
        let b = await second.drain(timeout: 30)
        #expect(a.accepted == 250 && a.duplicates == 0)
        #expect(b.accepted == 0 && b.duplicates == 250)
        let count = try collector.database.query("SELECT count(*), count(DISTINCT event_id) FROM events WHERE app_id = $1", [String(app.appId)])
        #expect(count.rows.first == ["250", "250"])
    }

    @Test func aWrongWriteKeyKeepsTheQueue() async throws {
        let collector = try TestCollector.start()
        defer { collector.stop() }
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let client = try Self.client(dir, port: collector.port, key: "tww_0000000000000000_notarealsecretnotarealsecretnotarealsec")
        try client.recordDelivery(NotificationContentValues(categoryIdentifier: "message"))
        let report = await client.flush()
        #expect(report.waitReason == .unauthorized)
        #expect(report.remaining == 1)
    }
}

struct HarnessMissing: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

/// Kills the recording process with SIGKILL in the middle of its flushes, many times, then lets
/// a fresh process drain the queue: the database must hold every recorded event exactly once.
@Suite(.serialized) struct CrashSafetyTests {
    static func harnessPath() throws -> String {
        var candidates: [String] = []
        if let explicit = ProcessInfo.processInfo.environment["TAPWIRE_CLIENT_HARNESS"] { candidates.append(explicit) }
        if let binary = ProcessInfo.processInfo.environment["TAPWIRE_BINARY"] {
            candidates.append(URL(fileURLWithPath: binary).deletingLastPathComponent().appendingPathComponent("tapwire-client-harness").path)
        }
        // The test bundle lives next to the products in .build/<configuration>/.
        var dir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<3 {
            candidates.append(dir.appendingPathComponent("tapwire-client-harness").path)
            dir = dir.deletingLastPathComponent()
        }
        guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw HarnessMissing(message: "tapwire-client-harness not found (tried \(candidates)); run `swift build --build-tests` or set TAPWIRE_CLIENT_HARNESS")
        }
        return found
    }

    static func run(_ path: String, _ arguments: [String]) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    /// A tap, then a kill -9 before the purchase: the next process's conversion still names the
    /// tapped notification, and both go with the one install id.
    @Test func aTapSurvivesAKillNineAndTheNextLaunchsConversionNamesIt() throws {
        let harness = try Self.harnessPath()
        let collector = try TestCollector.start()
        defer { collector.stop() }
        let app = try collector.database.createApp()
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let log = dir.appendingPathComponent("ids.log")
        let common = ["--queue", dir.appendingPathComponent("queue").path, "--endpoint", "http://127.0.0.1:\(collector.port)",
                      "--key", app.writeKey.text, "--log", log.path]

        let tapping = try Self.run(harness, common + ["--tap", "apns-before-crash", "--hang"])
        // Wait (bounded) until the tap's record() has returned: its id is then in the log.
        let deadline = Date().addingTimeInterval(60)
        while ((try? String(contentsOf: log, encoding: .utf8)) ?? "").isEmpty && Date() < deadline && tapping.isRunning {
            Thread.sleep(forTimeInterval: 0.02)
        }
        #expect(tapping.isRunning, "the harness exited before it was killed")
        kill(tapping.processIdentifier, SIGKILL)
        tapping.waitUntilExit()
        #expect(tapping.terminationReason == .uncaughtSignal)

        let converting = try Self.run(harness, common + ["--convert", "purchase", "--drain", "--timeout", "60"])
        converting.waitUntilExit()
        #expect(converting.terminationStatus == 0)
        let ids = try String(contentsOf: log, encoding: .utf8).split(separator: "\n").map(String.init)
        try #require(ids.count == 2)
        let rows = try collector.database.query(
            "SELECT event_id::text, type::text, notification_id, device_id FROM events WHERE app_id = $1 ORDER BY event_id",
            [String(app.appId)]).rows
        #expect(rows.map { $0[0] } == ids)
        #expect(rows.map { $0[1] } == ["response", "conversion"])
        #expect(rows.map { $0[2] } == ["apns-before-crash", "apns-before-crash"])
        let device = try #require(rows.first?[3])
        #expect(UUID(uuidString: device) != nil)
        #expect(rows.last?[3] == device)
    }

    @Test func killNineMidFlushLosesAndDuplicatesNothing() throws {
        let harness = try Self.harnessPath()
        let collector = try TestCollector.start()
        defer { collector.stop() }
        let app = try collector.database.createApp()
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let queue = dir.appendingPathComponent("queue").path
        let log = dir.appendingPathComponent("ids.log").path
        let common = ["--queue", queue, "--endpoint", "http://127.0.0.1:\(collector.port)", "--key", app.writeKey.text]

        var random = TestRandom(seed: 9)
        var killed = 0
        let rounds = 15
        for round in 0..<rounds {
            let process = try Self.run(harness, common + ["--record", "400", "--log", log, "--flush-every", "20", "--batch", "30",
                                                          "--seed", String(round * 10_000)])
            Thread.sleep(forTimeInterval: 0.03 + Double(random.next() % 250) / 1000)
            if process.isRunning {
                kill(process.processIdentifier, SIGKILL)
                killed += 1
            }
            process.waitUntilExit()
        }
        // A last round that is not killed, so the check below always covers a few hundred events.
        let last = try Self.run(harness, common + ["--record", "200", "--log", log, "--flush-every", "20", "--batch", "30",
                                                   "--seed", String(rounds * 10_000)])
        last.waitUntilExit()
        let drain = try Self.run(harness, common + ["--drain", "--timeout", "60"])
        drain.waitUntilExit()
        #expect(drain.terminationStatus == 0)
        #expect(killed >= rounds / 2, "only \(killed) of \(rounds) runs were killed; the test did not exercise kills")

        // Each line is an id whose record() had returned; a line cut by the kill is not complete.
        let lines = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n")
        let logged = Set(lines.compactMap { TelemetryEventID(String($0))?.description })
        let rows = try collector.database.query("SELECT event_id::text FROM events WHERE app_id = $1", [String(app.appId)]).rows
        let stored = rows.compactMap { $0[0] }
        #expect(logged.count >= 200)
        #expect(stored.count == Set(stored).count, "an event was stored twice")
        let missing = logged.subtracting(stored)
        #expect(missing.isEmpty, "\(missing.count) recorded events were lost")
        // At most one per kill was recorded but not yet logged when the process died.
        #expect(Set(stored).subtracting(logged).count <= killed)
    }
}
