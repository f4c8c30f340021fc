import Foundation
import TapwireStatistics
import Testing
import TapwireCore
import TapwireTestSupport

@testable import TapwireStore

private let t0 = Timestamp(seconds: Double(Int(Timestamp.now.secondsSince1970 / 3600) * 3600 - 2 * 3600))

private func event(_ type: EventType, _ category: String, action: String? = nil, at minutes: Double,
                   registered: Bool? = true, seed: inout SeededGenerator) -> Event {
    let time = t0.adding(seconds: minutes * 60)
    return Event(eventId: EventID.v7(at: time, using: &seed), type: type, deviceTime: time, category: category,
                 actionIdentifier: action, categoryRegistered: registered)
}

private let manifest = Manifest(appVersion: "1.0", categories: [
    ManifestCategory(identifier: "message", options: ["customDismissAction"], actions: [
        ManifestAction(identifier: "reply", textInput: true), ManifestAction(identifier: "delete", options: ["destructive"]),
    ]),
    ManifestCategory(identifier: "social_post", actions: [ManifestAction(identifier: "like")]),
])

@Suite(.serialized) struct MismatchStoreTests {
    @Test func rollupFollowsExactlyTheStoredEventsAndFeedsDetection() throws {
        let db = try TestDatabase.create()
        let connection = try db.connect()
        let appId = try db.createApp("rollup").appId
        _ = try ManifestStore().store(manifest, appId: appId, on: connection)
        var seed = SeededGenerator(seed: 7)
        let context = DeviceContext(appVersion: "1.0", platform: "iOS")
        let events = [
            event(.delivered, "message", at: 1, seed: &seed),
            event(.delivered, "message", at: 2, seed: &seed),
            event(.delivered, "Message", at: 3, seed: &seed),
            event(.delivered, "Message", at: 70, seed: &seed),  // the next hour
            event(.response, "social_post", action: "share", at: 4, seed: &seed),
            event(.delivered, "social_post", at: 4, registered: false, seed: &seed),
        ]
        let writer = EventWriter(connection: connection, partitions: PartitionDays())
        let outcome = try writer.commit([StagedBatch(appId: appId, receivedAt: t0.adding(seconds: 7200), context: context, events: events)])
        #expect(outcome == [BatchOutcome(stored: 6, duplicates: 0)])
        // A retry of the same batch, plus one new event: only the new one reaches the rollup.
        let again = events + [event(.delivered, "promo", at: 5, seed: &seed)]
        let second = try writer.commit([StagedBatch(appId: appId, receivedAt: t0.adding(seconds: 7200), context: context, events: again)])
        #expect(second == [BatchOutcome(stored: 1, duplicates: 6)])

        try RollupStore().fold(on: connection)
        let rows = try connection.query("SELECT sum(event_count) FROM mismatch_usage_hourly WHERE app_id = $1::bigint", [String(appId)]).scalar
        let daily = try connection.query("SELECT sum(event_count) FROM mismatch_usage_daily WHERE app_id = $1::bigint", [String(appId)]).scalar
        let raw = try connection.query("SELECT count(*) FROM events WHERE app_id = $1::bigint", [String(appId)]).scalar
        #expect(rows == "7" && daily == "7" && raw == "7")
        let buckets = try connection.query("SELECT count(DISTINCT bucket) FROM mismatch_usage_hourly WHERE app_id = $1::bigint AND category = 'Message'",
                                           [String(appId)]).scalar
        #expect(buckets == "2")

        let store = MismatchStore()
        let usage = try store.usage(appId: appId, since: t0, until: t0.adding(seconds: 3 * 3600), on: connection)
        let messageUsage = usage.filter { $0.category == "Message" }
        #expect(messageUsage.count == 1 && messageUsage[0].count == 2)
        #expect(messageUsage[0].firstSeen == t0.adding(seconds: 180) && messageUsage[0].lastSeen == t0.adding(seconds: 4200))

        let report = try store.report(appId: appId, appName: "rollup", since: t0, until: t0.adding(seconds: 3 * 3600), on: connection)
        let kinds = report.findings.map { "\($0.kind.rawValue):\($0.category):\($0.count)" }.sorted()
        #expect(kinds == ["case_mismatch:Message:2", "unknown_category:promo:1", "unknown_category:social_post:1",
                          "unregistered_action:social_post:1"])

        // The window: from the second hour on, only the later "Message" remains of it.
        let later = try store.report(appId: appId, appName: "rollup", since: t0.adding(seconds: 3600 + 60),
                                     until: t0.adding(seconds: 3 * 3600), on: connection)
        #expect(later.findings.filter { $0.kind != .deadCategory }.map { "\($0.kind.rawValue):\($0.count)" } == ["case_mismatch:1"])

        // A window of whole days reads the daily rollup: events 3 days back count once, with
        // the edge hours from the hourly rollup.
        let old = (0..<4).map { event(.delivered, "Message", at: Double(-3 * 1440 + $0 * 90), seed: &seed) }
        _ = try writer.commit([StagedBatch(appId: appId, receivedAt: t0, context: context, events: old)])
        let long = try store.report(appId: appId, appName: "rollup", since: t0.adding(seconds: -4 * 86_400 + 1800),
                                    until: t0.adding(seconds: 3 * 3600), on: connection)
        #expect(long.findings.first { $0.kind == .caseMismatch }?.count == 6)
        let window = MismatchWindow(since: t0.adding(seconds: -4 * 86_400 + 1800), until: t0.adding(seconds: 3 * 3600))
        #expect(window.fullDaysStart < window.fullDaysEnd)
    }

    @Test func migrationBackfillsTheRollupFromExistingEvents() throws {
        let db = try TestDatabase.create()
        let connection = try db.connect()
        let appId = try db.createApp("backfill").appId
        var seed = SeededGenerator(seed: 9)
        let writer = EventWriter(connection: connection, partitions: PartitionDays())
        _ = try writer.commit([StagedBatch(appId: appId, receivedAt: t0, context: DeviceContext(appVersion: "2.0", platform: "iOS"),
                                           events: (0..<5).map { event(.delivered, "x", at: Double($0), seed: &seed) })])
        try connection.query("TRUNCATE rollup_delta_batches, rollup_deltas, mismatch_usage_hourly, mismatch_usage_daily")
        let backfill = try #require(EmbeddedSQL.migrations.first { $0.version == 20 }).sql
        let insert = String(backfill[backfill.range(of: "INSERT INTO mismatch_usage_hourly")!.lowerBound...])
        try connection.executeScript(insert)
        #expect(try connection.query("SELECT event_count FROM mismatch_usage_hourly").scalar == "5")
        #expect(try connection.query("SELECT event_count FROM mismatch_usage_daily").scalar == "5")
    }

    @Test func theOutboxClaimsEachKeyOnceAndLeasesExclusively() throws {
        let db = try TestDatabase.create()
        let connection = try db.connect()
        let appId = try db.createApp("outbox").appId
        let other = try db.connect()
        let outbox = FindingOutbox()
        func message(_ version: String, _ kind: FindingKind, _ category: String, _ detail: String = "") -> FindingOutbox.Message {
            FindingOutbox.Message(key: FindingKey(appId: appId, appVersion: version, kind: kind, category: category, detail: detail),
                                  severity: .error, payload: #"{"text":"\#(version) \#(category) \#(detail)"}"#, firstSeen: t0)
        }
        let messages = [
            message("1.0", .mismatch(.unknownCategory), "promo"), message("1.1", .mismatch(.unknownCategory), "promo"),
            message("1.1", .engagementRegression, "promo", "opens"), message("1.1", .engagementRegression, "promo", "action:share"),
        ]
        let queued = try outbox.enqueue(appId: appId, messages, on: connection)
        #expect(Set(queued) == Set(messages.map(\.key)))
        // Another collector seeing the same findings queues nothing; a message of another app is not this call's.
        #expect(try outbox.enqueue(appId: appId, messages + [message("1.0", .engagementRegression, "x")].map {
            var m = $0; m.key.appId = appId + 1; return m
        }, on: other).isEmpty)

        let mine = try outbox.lease(owner: "a", leaseSeconds: 60, limit: 3, on: connection)
        let theirs = try outbox.lease(owner: "b", leaseSeconds: 60, limit: 10, on: other)
        #expect(mine.count == 3 && theirs.count == 1)
        #expect(Set(mine.map(\.key)).isDisjoint(with: theirs.map(\.key)))
        #expect(Set((mine + theirs).map(\.key)) == Set(messages.map(\.key)))
        #expect((mine + theirs).allSatisfy { $0.payload.contains($0.key.category) })

        // Only the holder can settle; a retry comes back after its delay, a sent one never.
        #expect(try !outbox.settle(theirs[0], owner: "a", decision: .markSent, error: nil, on: connection))
        #expect(try outbox.settle(theirs[0], owner: "b", decision: .markSent, error: nil, on: other))
        #expect(try outbox.settle(mine[0], owner: "a", decision: .retry(afterSeconds: 0), error: "refused", on: connection))
        #expect(try outbox.settle(mine[1], owner: "a", decision: .retry(afterSeconds: 3600), error: "refused", on: connection))
        #expect(try outbox.settle(mine[2], owner: "a", decision: .giveUp, error: "HTTP 404", on: connection))
        let retried = try outbox.lease(owner: "b", leaseSeconds: 60, limit: 10, on: other)
        #expect(retried.map(\.key) == [mine[0].key] && retried[0].attempts == 2)
        #expect(try outbox.counts(on: connection) == ["pending": 2, "sent": 1, "failed": 1])
    }
}
