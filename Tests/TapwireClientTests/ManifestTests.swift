import Foundation
import Testing
@testable import TapwireClient

@Suite struct ManifestTests {
    static let manifest = CategoryManifest(appVersion: "3.2.1", categories: [
        RegisteredCategory(identifier: "social_post", actions: [RegisteredAction(identifier: "like")]),
        RegisteredCategory(identifier: "message", title: "Messages", options: ["customDismissAction", "allowInCarPlay"], actions: [
            RegisteredAction(identifier: "reply", title: "Reply", options: ["foreground"], textInput: true),
            RegisteredAction(identifier: "delete", title: "Delete", options: ["destructive"]),
        ]),
    ])

    @Test func syncPostsOnlyWhenTheHashChangesAcrossRestarts() async throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let collector = try FakeCollector()
        defer { collector.stop() }
        do {
            let client = try ClientTests.makeClient(dir, collector.url)
            guard case .synced(let hash, let created) = await client.syncManifest(Self.manifest) else {
                Issue.record("first sync must post")
                return
            }
            #expect(hash == Self.manifest.contentHash)
            #expect(created == true)
            #expect(await client.syncManifest(Self.manifest) == .unchanged)
            client.close()
        }
        let relaunched = try ClientTests.makeClient(dir, collector.url)
        var reordered = Self.manifest
        reordered.categories.reverse()
        #expect(await relaunched.syncManifest(reordered) == .unchanged)
        #expect(collector.state.withLock { $0.manifestPosts } == 1)

        let posted = try #require(collector.server.requests.first)
        #expect(posted.path == "/v1/categories")
        #expect(posted.headers["authorization"] == "Basic d2tfdGVzdDo=")
        #expect(posted.decodedBody == Self.manifest.canonicalJSON.serializedBytes())

        var changed = Self.manifest
        changed.categories[0].actions.append(RegisteredAction(identifier: "share"))
        guard case .synced = await relaunched.syncManifest(changed) else {
            Issue.record("a changed manifest must post")
            return
        }
        #expect(collector.state.withLock { $0.manifestPosts } == 2)
    }

    @Test func aFailedSyncStaysPendingAndTheNextFlushPostsIt() async throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let collector = try FakeCollector()
        defer { collector.stop() }
        collector.state.withLock { $0.script = [(503, "1")] }
        let client = try ClientTests.makeClient(dir, collector.url)
        guard case .pending = await client.syncManifest(Self.manifest) else {
            Issue.record("a 503 must leave the manifest pending")
            return
        }
        #expect(collector.state.withLock { $0.manifestPosts } == 0)
        await client.flush()
        #expect(collector.state.withLock { $0.manifestPosts } == 1)
        #expect(await client.syncManifest(Self.manifest) == .unchanged)
    }

    @Test func aRefusedManifestIsReportedAndNotMarkedSynced() async throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let collector = try FakeCollector()
        defer { collector.stop() }
        collector.state.withLock { $0.script = [(400, nil)] }
        let errors = Locked<[TapwireClientError]>([])
        let client = try TapwireClient(configuration: TapwireConfiguration(
            writeKey: "wk_test", endpoint: collector.url, queueDirectory: dir,
            device: DeviceInfo(appVersion: "1", platform: "iOS"), onError: { e in errors.withLock { $0.append(e) } }))
        guard case .rejected(let status, _) = await client.syncManifest(Self.manifest) else {
            Issue.record("a 400 must be reported as rejected")
            return
        }
        #expect(status == 400)
        #expect(errors.withLock { $0 }.map(\.code) == [.manifestRejected])
        // Not marked synced: the next launch tries again (and here succeeds).
        guard case .synced = await client.syncManifest(Self.manifest) else {
            Issue.record("expected a second attempt")
            return
        }
    }
}
