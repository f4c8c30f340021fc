import TapwireStatistics
import Testing
@testable import TapwireCore

@Suite struct TokenBucketTests {
    @Test func allowsBurstThenRefillsAtRate() {
        var bucket = TokenBucket(ratePerSecond: 100, burst: 200, now: Timestamp(seconds: 0))
        #expect(bucket.take(200, now: Timestamp(seconds: 0)) == .allowed)
        #expect(bucket.take(1, now: Timestamp(seconds: 0)) == .limited(retryAfterSeconds: 1))
        #expect(bucket.take(50, now: Timestamp(seconds: 0.5)) == .allowed)
        // 150 more needs 1.5 s at 100/s: Retry-After rounds up to 2.
        #expect(bucket.take(150, now: Timestamp(seconds: 0.5)) == .limited(retryAfterSeconds: 2))
        #expect(bucket.take(200, now: Timestamp(seconds: 100)) == .allowed)
    }

    @Test func moreThanTheBurstWaitsAMinute() {
        var bucket = TokenBucket(ratePerSecond: 1, burst: 2, now: Timestamp(seconds: 0))
        #expect(bucket.take(3, now: Timestamp(seconds: 0)) == .limited(retryAfterSeconds: 60))
    }
}

@Suite struct BackoffTests {
    @Test func growsExponentiallyWithJitterWithinCeiling() {
        var backoff = Backoff(baseSeconds: 0.1, maxSeconds: 1)
        var generator = SeededGenerator(seed: 7)
        var ceilings: [Double] = []
        for _ in 0..<6 {
            let ceiling = backoff.currentCeiling
            let delay = backoff.nextDelay(using: &generator)
            #expect(delay <= ceiling && delay >= ceiling / 2)
            ceilings.append(ceiling)
        }
        #expect(ceilings == [0.1, 0.2, 0.4, 0.8, 1, 1])
        backoff.reset()
        #expect(backoff.currentCeiling == 0.1)
    }
}

@Suite struct GroupCommitQueueTests {
    @Test func takesEverythingQueuedUpToTheCap() {
        var queue = GroupCommitQueue<Int>(policy: .init(maxEventsPerCommit: 1000, maxQueuedEvents: 10_000))
        for i in 0..<5 { #expect(queue.submit(i, events: 300) == .queued) }
        #expect(queue.queuedEvents == 1500)
        #expect(queue.takeGroup() == [0, 1, 2])
        #expect(queue.takeGroup() == [3, 4])
        #expect(queue.takeGroup() == nil)
        #expect(queue.queuedEvents == 0)
    }

    @Test func aRequestLargerThanTheCapStillGoesAlone() {
        var queue = GroupCommitQueue<Int>(policy: .init(maxEventsPerCommit: 100, maxQueuedEvents: 10_000))
        _ = queue.submit(1, events: 500)
        _ = queue.submit(2, events: 10)
        #expect(queue.takeGroup() == [1])
        #expect(queue.takeGroup() == [2])
    }

    @Test func boundedQueueRefusesWithRetryAfter() {
        var queue = GroupCommitQueue<Int>(policy: .init(maxEventsPerCommit: 100, maxQueuedEvents: 1000))
        #expect(queue.submit(1, events: 900) == .queued)
        #expect(queue.submit(2, events: 200) == .overloaded(retryAfterSeconds: 1))
        #expect(queue.submit(3, events: 100) == .queued)
    }

    @Test func unavailableFailsQueuedAndRefusesNewUntilAvailable() {
        var queue = GroupCommitQueue<Int>()
        _ = queue.submit(1, events: 1)
        _ = queue.submit(2, events: 1)
        #expect(queue.markUnavailable(retryAfterSeconds: 3) == [1, 2])
        #expect(queue.submit(3, events: 1) == .unavailable(retryAfterSeconds: 3))
        #expect(queue.takeGroup() == nil)
        queue.markAvailable()
        #expect(queue.submit(4, events: 1) == .queued)
        #expect(queue.takeGroup() == [4])
    }
}

@Suite struct GroupCommitLingerTests {
    let policy = GroupCommitQueue<Int>.Policy(maxEventsPerCommit: 10_000, maxQueuedEvents: 100_000, minEventsWhenBusy: 1000,
                                              lingerNanoseconds: 5_000_000)

    @Test func anIdleCollectorCommitsAtOnce() {
        var queue = GroupCommitQueue<Int>(policy: policy)
        _ = queue.submit(1, events: 10, now: 100)
        guard case .commit(let group) = queue.take(now: 100) else { Issue.record("expected a commit"); return }
        #expect(group == [1])
        #expect(queue.busyWriters == 1)
    }

    @Test func whileAnotherWriterIsBusyASmallGroupWaitsToFillOrForTheLinger() {
        var queue = GroupCommitQueue<Int>(policy: policy)
        _ = queue.submit(1, events: 500, now: 0)
        guard case .commit = queue.take(now: 0) else { Issue.record("expected a commit"); return }
        _ = queue.submit(2, events: 300, now: 1_000_000)
        guard case .waitUntil(let due) = queue.take(now: 1_000_000) else { Issue.record("expected to wait"); return }
        #expect(due == 6_000_000)
        // Enough events arrive: commit before the linger is over.
        _ = queue.submit(3, events: 800, now: 2_000_000)
        guard case .commit(let filled) = queue.take(now: 2_000_000) else { Issue.record("expected a commit"); return }
        #expect(filled == [2, 3])
        queue.finishedGroup()
        // Still one busy writer: a lone small request waits only for the linger.
        _ = queue.submit(4, events: 10, now: 3_000_000)
        guard case .waitUntil = queue.take(now: 7_999_999) else { Issue.record("expected to wait"); return }
        guard case .commit(let late) = queue.take(now: 8_000_000) else { Issue.record("expected a commit"); return }
        #expect(late == [4])
        queue.finishedGroup()
        queue.finishedGroup()
        #expect(queue.busyWriters == 0)
        guard case .idle = queue.take(now: 9_000_000) else { Issue.record("expected idle"); return }
    }
}

@Suite struct ConstantTimeTests {
    @Test func constantTimeComparison() {
        #expect(constantTimeEquals([1, 2, 3], [1, 2, 3]))
        #expect(!constantTimeEquals([1, 2, 3], [1, 2, 4]))
        #expect(!constantTimeEquals([1, 2], [1, 2, 3]))
    }
}

@Suite struct APIKeyTests {
    @Test func generatesParseableKeysOfEachKind() throws {
        let write = APIKey.generate(kind: .write)
        let read = APIKey.generate(kind: .read)
        #expect(write.text.hasPrefix("tww_"))
        #expect(read.text.hasPrefix("twr_"))
        #expect(APIKey(parsing: write.text) == write)
        #expect(APIKey(parsing: read.text)?.kind == .read)
        #expect(write.redacted.contains(write.keyId) && !write.redacted.contains(write.secret))
        #expect(write.secretHash.count == 32)
    }

    @Test(arguments: ["", "tww_", "twx_0123456789abcdef_" + String(repeating: "a", count: 40),
                      "tww_0123456789ABCDEF_" + String(repeating: "a", count: 40), "tww_0123456789abcdef_short",
                      "tww_0123456789abcdef_" + String(repeating: "-", count: 40)])
    func rejectsMalformed(_ text: String) {
        #expect(APIKey(parsing: text) == nil)
    }
}

@Suite struct ManifestTests {
    let body = #"""
    {"appVersion": "3.2.1", "categories": [
      {"identifier": "message", "title": "Messages", "options": ["customDismissAction", "allowInCarPlay"],
       "actions": [{"identifier": "reply", "title": "Reply", "options": ["foreground"], "textInput": true},
                   {"identifier": "delete", "title": "Delete", "options": ["destructive"]}]},
      {"identifier": "social_post", "options": [], "actions": [{"identifier": "like", "options": []}]}]}
    """#

    @Test func decodesAppleOptions() throws {
        let manifest = try ManifestDecoder().decode(Array(body.utf8))
        #expect(manifest.appVersion == "3.2.1")
        let message = try #require(manifest.category("message"))
        #expect(message.hasCustomDismissAction && message.allowsCarPlay)
        #expect(message.actions.map(\.identifier) == ["reply", "delete"])
        #expect(message.actions[0].textInput && message.actions[1].isDestructive)
        #expect(manifest.category("social_post")?.hasCustomDismissAction == false)
    }

    @Test func hashIgnoresCategoryOrderButNotActionOrder() throws {
        let a = try ManifestDecoder().decode(Array(body.utf8))
        var b = a
        b.categories.reverse()
        #expect(a.contentHash == b.contentHash)
        var c = a
        c.categories[0].actions.reverse()
        #expect(a.contentHash != c.contentHash)
        // The canonical form decodes back to the same manifest.
        let again = try ManifestDecoder().decode(a.canonicalJSON)
        #expect(again.contentHash == a.contentHash)
    }

    @Test func rejectsBadManifests() {
        let cases = [
            #"{"categories": []}"#,
            #"{"appVersion": "1", "categories": [{"identifier": ""}]}"#,
            #"{"appVersion": "1", "categories": [{"identifier": "a"}, {"identifier": "a"}]}"#,
            #"{"appVersion": "1", "categories": [{"identifier": "a", "actions": [{"identifier": "x"}, {"identifier": "x"}]}]}"#,
            #"{"appVersion": "1", "categories": [{"identifier": "a\u0000"}]}"#,
            #"{"appVersion": "1", "categories": [{"identifier": "a", "actions": [{"identifier": "x", "textInput": "yes"}]}]}"#,
        ]
        for text in cases {
            #expect(throws: ManifestError.self) { try ManifestDecoder().decode(Array(text.utf8)) }
        }
    }
}
