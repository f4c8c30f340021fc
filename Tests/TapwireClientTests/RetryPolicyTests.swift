import Testing
@testable import TapwireClient

@Suite struct RetryPolicyTests {
    let policy = RetryPolicy(baseDelay: 1, maxDelay: 60, multiplier: 2, maxRetryAfter: 600, retryAfterJitter: 0.1)

    func machine(maxBatch: Int = 100) -> DeliveryStateMachine { DeliveryStateMachine(policy: policy, maxBatch: maxBatch) }

    func waitSeconds(_ decision: DeliveryDecision) -> (Double, WaitReason)? {
        if case .wait(let s, let r) = decision { return (s, r) }
        return nil
    }

    @Test func okAcknowledgesTheWholeBatchAndReportsExactlyTheRejected() {
        var m = machine()
        var random = TestRandom()
        let rejections = [BatchRejection(index: 3, eventId: "e3", code: "too_long", reason: "r"),
                          BatchRejection(index: 7, eventId: "e7", code: "invalid_field", reason: "r"),
                          BatchRejection(index: 3, eventId: "e3", code: "too_long", reason: "again"),
                          BatchRejection(index: 99, eventId: "x", code: "bogus", reason: "out of range")]
        let decision = m.next(after: .acknowledged(BatchAcknowledgement(accepted: 7, duplicates: 1, rejected: rejections)),
                              batchCount: 10, using: &random)
        #expect(decision == .acknowledge(count: 10, rejected: Array(rejections[0...1])))
        #expect(m.consecutiveFailures == 0)
    }

    @Test func okResetsBackoffAndRegrowsTheBatchLimit() {
        var m = machine(maxBatch: 64)
        var random = TestRandom()
        _ = m.next(after: .transportFailure, batchCount: 64, using: &random)
        _ = m.next(after: .transportFailure, batchCount: 64, using: &random)
        #expect(m.consecutiveFailures == 2)
        #expect(m.next(after: .status(413, retryAfter: nil, errorCode: nil), batchCount: 64, using: &random) == .split(batchLimit: 32))
        #expect(m.next(after: .status(413, retryAfter: nil, errorCode: nil), batchCount: 32, using: &random) == .split(batchLimit: 16))
        _ = m.next(after: .acknowledged(BatchAcknowledgement(accepted: 16, duplicates: 0)), batchCount: 16, using: &random)
        #expect(m.consecutiveFailures == 0)
        #expect(m.batchLimit == 32)
        _ = m.next(after: .acknowledged(BatchAcknowledgement(accepted: 32, duplicates: 0)), batchCount: 32, using: &random)
        _ = m.next(after: .acknowledged(BatchAcknowledgement(accepted: 64, duplicates: 0)), batchCount: 64, using: &random)
        #expect(m.batchLimit == 64)
    }

    @Test func tooLargeHalvesDownToOneThenDropsOnlyThatEvent() {
        var m = machine(maxBatch: 100)
        var random = TestRandom()
        var count = 100
        var splits: [Int] = []
        while true {
            let decision = m.next(after: .status(413, retryAfter: nil, errorCode: "payload_too_large"), batchCount: count, using: &random)
            if case .split(let limit) = decision {
                splits.append(limit)
                count = limit
                continue
            }
            #expect(decision == .dropPoison(BatchRejection(index: 0, eventId: nil, code: "payload_too_large",
                                                          reason: "the collector answered 413 to a batch of this one event")))
            break
        }
        #expect(splits == [50, 25, 12, 6, 3, 1])
        #expect(m.consecutiveFailures == 0)
    }

    @Test func badRequestBisectsToThePoisonEvent() {
        var m = machine()
        var random = TestRandom()
        #expect(m.next(after: .status(400, retryAfter: nil, errorCode: "invalid_batch"), batchCount: 2, using: &random) == .split(batchLimit: 1))
        guard case .dropPoison(let r) = m.next(after: .status(400, retryAfter: nil, errorCode: nil), batchCount: 1, using: &random) else {
            Issue.record("a batch of one that is still refused must be dropped")
            return
        }
        #expect(r.code == "invalid_event")
    }

    @Test(arguments: [429, 503])
    func retryAfterIsHonouredWithBoundedJitter(status: Int) {
        var m = machine()
        var random = TestRandom(seed: UInt64(status))
        for _ in 0..<200 {
            let (seconds, reason) = waitSeconds(m.next(after: .status(status, retryAfter: 30, errorCode: nil), batchCount: 5, using: &random))!
            #expect(seconds >= 30 && seconds <= 33)
            #expect(reason == (status == 429 ? .rateLimited : .unavailable))
        }
        // A huge Retry-After is capped; none falls back to backoff.
        #expect(waitSeconds(m.next(after: .status(status, retryAfter: 1e9, errorCode: nil), batchCount: 5, using: &random))!.0 <= 660)
        var fresh = machine()
        let (backoff, _) = waitSeconds(fresh.next(after: .status(status, retryAfter: nil, errorCode: nil), batchCount: 5, using: &random))!
        #expect(backoff >= 0.5 && backoff <= 1)
    }

    @Test(arguments: [
        (SendOutcome.transportFailure, WaitReason.network),
        (.status(500, retryAfter: nil, errorCode: nil), .serverError),
        (.status(502, retryAfter: nil, errorCode: nil), .serverError),
        (.status(504, retryAfter: nil, errorCode: nil), .serverError),
        (.status(408, retryAfter: nil, errorCode: nil), .timeout),
        (.status(401, retryAfter: nil, errorCode: nil), .unauthorized),
        (.status(403, retryAfter: nil, errorCode: nil), .forbidden),
        (.status(404, retryAfter: nil, errorCode: nil), .unexpectedStatus),
        (.status(302, retryAfter: nil, errorCode: nil), .unexpectedStatus),
        (.unreadable(status: 200), .unreadableResponse),
    ])
    func keepsEverythingAndBacksOffExponentiallyWithJitter(outcome: SendOutcome, reason: WaitReason) {
        var m = machine()
        var random = TestRandom()
        var previousStep = 0.0
        for failure in 1...10 {
            let decision = m.next(after: outcome, batchCount: 10, using: &random)
            guard let (seconds, why) = waitSeconds(decision) else {
                Issue.record("\(outcome) must keep the batch and wait, got \(decision)")
                return
            }
            let step = min(60, Double(1 << (failure - 1)))
            #expect(why == reason)
            #expect(seconds >= step / 2 && seconds <= step, "failure \(failure): \(seconds) not in [\(step / 2), \(step)]")
            #expect(step >= previousStep)
            previousStep = step
        }
        #expect(m.consecutiveFailures == 10)
        #expect(m.batchLimit == 100)
    }

    @Test func jitterActuallyVaries() {
        var random = TestRandom()
        var values = Set<Double>()
        for _ in 0..<50 {
            var m = machine()
            values.insert(waitSeconds(m.next(after: .transportFailure, batchCount: 1, using: &random))!.0)
        }
        #expect(values.count > 40)
    }

    @Test func unsupportedEncodingRetriesUncompressedOnceThenBacksOff() {
        var m = machine()
        var random = TestRandom()
        #expect(m.compress)
        #expect(m.next(after: .status(415, retryAfter: nil, errorCode: nil), batchCount: 3, using: &random) == .retryUncompressed)
        #expect(!m.compress)
        #expect(waitSeconds(m.next(after: .status(415, retryAfter: nil, errorCode: nil), batchCount: 3, using: &random))?.1 == .unsupportedEncoding)
    }

    @Test func aRecoveringServerGetsEverythingOnce() {
        // A queue of 1,000 events against a server down for six answers, then healthy: the pure
        // machine driven by a simulated queue delivers each event exactly once and drops none.
        var m = machine(maxBatch: 100)
        var random = TestRandom()
        var queue = Array(0..<1000)
        var stored: [Int: Int] = [:]
        var downFor = 6
        var waited = 0.0
        while !queue.isEmpty {
            let batch = Array(queue.prefix(m.batchLimit))
            let outcome: SendOutcome
            if downFor > 0 {
                downFor -= 1
                outcome = downFor % 2 == 0 ? .status(503, retryAfter: 2, errorCode: nil) : .transportFailure
            } else {
                for e in batch { stored[e, default: 0] += 1 }
                outcome = .acknowledged(BatchAcknowledgement(accepted: batch.count, duplicates: 0))
            }
            switch m.next(after: outcome, batchCount: batch.count, using: &random) {
            case .acknowledge(let count, _): queue.removeFirst(count)
            case .wait(let s, _): waited += s
            default: Issue.record("unexpected decision")
            }
        }
        #expect(stored.count == 1000)
        #expect(stored.values.allSatisfy { $0 == 1 })
        #expect(waited > 6)
    }
}
