import Foundation
import Testing
@testable import TapwireClient

/// The registered-category set the client keeps instead of asking the system while recording:
/// the pure cache, then the client across cold starts, refreshes and a manifest change.
@Suite struct RegisteredCategoryTests {
    static func manifest(_ identifiers: [String], version: String = "3.2.1") -> CategoryManifest {
        CategoryManifest(appVersion: version, categories: identifiers.map { RegisteredCategory(identifier: $0) })
    }

    /// `categoryRegistered` of each queued event, in queue order (nil: the field is absent).
    static func queuedCategoryRegistered(_ client: TapwireClient) throws -> [Bool?] {
        let records = try client.recorder.withLock { (state: inout TapwireClient.Recorder) throws(QueueError) -> [QueuedRecord] in
            try state.queue?.peek(maxEvents: 1000, maxJSONBytes: 1 << 20) ?? []
        }
        return try records.map { record in
            let object = try #require(try JSONSerialization.jsonObject(with: Data(record.json)) as? [String: Any])
            return object["categoryRegistered"] as? Bool
        }
    }

    static func delivery(_ category: String) -> NotificationContentValues {
        NotificationContentValues(categoryIdentifier: category)
    }

    // MARK: The pure cache

    @Test func coldStartWithoutAFileKnowsNothingAndWritesNothing() {
        let cache = RegisteredCategoryCache(appVersion: "3.2.1", persisted: nil)
        #expect(cache.identifiers == nil)
        #expect(cache.persisted == nil)
    }

    @Test func refreshWritesOnlyWhenTheSetChanges() throws {
        var cache = RegisteredCategoryCache(appVersion: "3.2.1", persisted: nil)
        let written = cache.refresh(Self.manifest(["social_post", "message"]))
        let first = try #require(written)
        #expect(String(decoding: first, as: UTF8.self) == #"{"appVersion":"3.2.1","identifiers":["message","social_post"]}"#)
        #expect(cache.identifiers == ["message", "social_post"])
        // The same set in another order, or with other actions and options: nothing to write.
        var sameIdentifiers = Self.manifest(["message", "social_post"])
        sameIdentifiers.categories[0].actions = [RegisteredAction(identifier: "reply", textInput: true)]
        #expect(cache.refresh(sameIdentifiers) == nil)
        // Registering nothing is a fact too (the set is known and empty), unlike never having read it.
        let emptied = cache.refresh(Self.manifest([]))
        let empty = try #require(emptied)
        #expect(String(decoding: empty, as: UTF8.self) == #"{"appVersion":"3.2.1","identifiers":[]}"#)
        #expect(cache.identifiers == [])
    }

    @Test func aPersistedSetIsTrustedOnlyByTheSameAppVersion() throws {
        var writer = RegisteredCategoryCache(appVersion: "3.2.1", persisted: nil)
        let written = writer.refresh(Self.manifest(["message", "Message", "ünïcode"]))
        let bytes = try #require(written)
        let relaunched = RegisteredCategoryCache(appVersion: "3.2.1", persisted: bytes)
        #expect(relaunched.identifiers == ["message", "Message", "ünïcode"])
        #expect(relaunched.persisted == bytes)
        #expect(RegisteredCategoryCache(appVersion: "3.3.0", persisted: bytes).identifiers == nil)
    }

    @Test func aDamagedFileMeansUnknownNotAnError() {
        for damaged in [[], Array("{".utf8), Array(#"{"appVersion":"3.2.1"}"#.utf8), Array(#"{"appVersion":"3.2.1","identifiers":[1]}"#.utf8),
                        Array(#"["message"]"#.utf8)] {
            #expect(RegisteredCategoryCache(appVersion: "3.2.1", persisted: damaged).identifiers == nil,
                    "\(String(decoding: damaged, as: UTF8.self))")
        }
    }

    /// iOS finds a notification's category by its identifier's bytes (NSString compares UTF-16
    /// code units literally): a payload naming "café" decomposed is not registered when the app
    /// registered it composed, though the two are equal `String`s; an app that registers both
    /// forms keeps both, across a relaunch too (docs/SDK.md).
    @Test func aCategoryInAnotherNormalFormIsNotRegistered() throws {
        var cache = RegisteredCategoryCache(appVersion: "3.2.1", persisted: nil)
        _ = cache.refresh(Self.manifest(["caf\u{E9}"]))
        let identifiers = try #require(cache.identifiers)
        func registered(_ category: String) -> Bool? {
            EventBuilder().delivered(Self.delivery(category), notificationId: nil, id: .v7(at: .now), at: Date(),
                                     registeredCategories: identifiers).categoryRegistered
        }
        #expect(registered("caf\u{E9}") == true)
        #expect(registered("cafe\u{301}") == false)
        let written = cache.refresh(Self.manifest(["caf\u{E9}", "cafe\u{301}"]))
        let bytes = try #require(written, "registering the other form too is a change")
        #expect(cache.identifiers?.count == 2)
        #expect(RegisteredCategoryCache(appVersion: "3.2.1", persisted: bytes).identifiers?.count == 2)
    }

    // MARK: The client

    @Test func coldStartRefreshAndRelaunchDecideCategoryRegistered() throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let unused = URL(string: "http://127.0.0.1:9")!
        do {
            // Cold start, nothing read yet: the field is left out rather than guessed.
            let client = try ClientTests.makeClient(dir, unused)
            #expect(client.registeredCategories == nil)
            try client.recordDelivery(Self.delivery("message"))
            client.refreshRegisteredCategories(Self.manifest(["message"]))
            try client.recordDelivery(Self.delivery("message"))
            try client.recordDelivery(Self.delivery("promo"))
            try client.recordDelivery(Self.delivery("Message"))  // case-sensitive, as the system matches
            // An explicit set still overrides the kept one.
            try client.recordDelivery(Self.delivery("promo"), registeredCategories: ["promo"])
            #expect(try Self.queuedCategoryRegistered(client) == [nil, true, false, false, true])
            client.close()
        }
        let file = dir.appendingPathComponent(RegisteredCategoryCache.fileName)
        #expect(try String(contentsOf: file, encoding: .utf8) == #"{"appVersion":"3.2.1","identifiers":["message"]}"#)

        // Relaunch of the same version: the first record already knows the set, before any refresh.
        do {
            let client = try ClientTests.makeClient(dir, unused)
            #expect(client.registeredCategories == ["message"])
            try client.recordResponse(ClientTests.response(1))  // category "message"
            #expect(try Self.queuedCategoryRegistered(client).last == true)
            client.close()
        }

        // After an update to another version, the old set is not used until a refresh.
        let updated = try TapwireClient(configuration: TapwireConfiguration(
            writeKey: "wk_test", endpoint: unused, queueDirectory: dir,
            device: DeviceInfo(appVersion: "3.3.0", platform: "iOS"), retry: ClientTests.fastRetry))
        #expect(updated.registeredCategories == nil)
        try updated.recordDelivery(Self.delivery("message"))
        updated.refreshRegisteredCategories(Self.manifest(["message", "promo"], version: "3.3.0"))
        try updated.recordDelivery(Self.delivery("promo"))
        #expect(try Self.queuedCategoryRegistered(updated).suffix(2) == [nil, true])
        #expect(try String(contentsOf: file, encoding: .utf8) == #"{"appVersion":"3.3.0","identifiers":["message","promo"]}"#)
        updated.close()
    }

    @Test func theAppAndItsExtensionEachKeepTheirOwn() throws {
        let root = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let unused = URL(string: "http://127.0.0.1:9")!
        let app = try ClientTests.makeClient(root.appendingPathComponent("app"), unused)
        let serviceExtension = try ClientTests.makeClient(root.appendingPathComponent("extension"), unused)
        app.refreshRegisteredCategories(Self.manifest(["message"]))
        #expect(serviceExtension.registeredCategories == nil)
        serviceExtension.refreshRegisteredCategories(Self.manifest(["message", "promo"]))
        #expect(app.registeredCategories == ["message"])
        #expect(FileManager.default.fileExists(atPath: root.appendingPathComponent("app").appendingPathComponent(RegisteredCategoryCache.fileName).path))
        #expect(FileManager.default.fileExists(atPath: root.appendingPathComponent("extension").appendingPathComponent(RegisteredCategoryCache.fileName).path))
    }

    @Test func aManifestChangeIsKeptForRecordingAndPostedOnce() async throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let collector = try FakeCollector()
        defer { collector.stop() }
        let client = try ClientTests.makeClient(dir, collector.url)

        guard case .synced = await client.syncCategories(Self.manifest(["message"])) else {
            Issue.record("the first sync must post")
            return
        }
        try client.recordDelivery(Self.delivery("promo"))
        // The same registration at the next launch: kept as it is, nothing posted.
        #expect(await client.syncCategories(Self.manifest(["message"])) == .unchanged)
        #expect(collector.state.withLock { $0.manifestPosts } == 1)

        // The app registers a new category: the next record sees it, and the manifest is posted again.
        let changed = Self.manifest(["message", "promo"])
        guard case .synced(let hash, _) = await client.syncCategories(changed) else {
            Issue.record("a changed manifest must post")
            return
        }
        #expect(hash == changed.contentHash)
        #expect(collector.state.withLock { $0.manifestPosts } == 2)
        try client.recordDelivery(Self.delivery("promo"))
        #expect(try Self.queuedCategoryRegistered(client) == [false, true])

        // A sync that cannot post still updates what recording uses.
        collector.state.withLock { $0.script = [(503, nil)] }
        guard case .pending = await client.syncCategories(Self.manifest(["message"])) else {
            Issue.record("a 503 must leave the manifest pending")
            return
        }
        try client.recordDelivery(Self.delivery("promo"))
        #expect(try Self.queuedCategoryRegistered(client).last == false)
    }
}
