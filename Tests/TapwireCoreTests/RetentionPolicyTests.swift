import Testing
@testable import TapwireCore

@Suite struct RetentionPolicyTests {
    let day: Int64 = 86_400

    @Test func keepShorterThanTheAcceptanceWindowIsRefused() {
        #expect(throws: RetentionPolicy.Problem.keepTooShort(keepSeconds: 399 * day, minimumSeconds: 400 * day)) {
            try RetentionPolicy(keepSeconds: 399 * day)
        }
        #expect(throws: RetentionPolicy.Problem.batchSizeOutOfRange(10)) { try RetentionPolicy(keepSeconds: 400 * day, batchSize: 10) }
        #expect((try? RetentionPolicy(keepSeconds: 400 * day)) != nil)
        // The minimum follows the collector's limit, not a constant of its own.
        var limits = IngestLimits()
        limits.maxEventAgeMicroseconds = 30 * day * 1_000_000
        #expect((try? RetentionPolicy(keepSeconds: 30 * day, limits: limits)) != nil)
        #expect((try? RetentionPolicy(keepSeconds: 29 * day, limits: limits)) == nil)
    }

    @Test func theMessageSaysWhatToDo() {
        let problem = RetentionPolicy.Problem.keepTooShort(keepSeconds: 30 * day, minimumSeconds: 400 * day)
        #expect(problem.description.contains("--keep 400d"))
        #expect(problem.code == "keep_too_short")
    }

    @Test func cutoffsLeaveRoomForClocksAndTheFutureClamp() throws {
        let now = Timestamp(iso8601: "2027-06-01T12:00:00Z")!
        let policy = try RetentionPolicy(keepSeconds: 400 * day)
        // Partitions ending 400 days and an hour before now are dropped.
        #expect(policy.partitionCutoff(now: now) == Timestamp(iso8601: "2026-04-27T11:00:00Z"))
        // Ids go a day later than that: an event's time can be up to 24 h after its receipt.
        #expect(policy.idCutoff(now: now) == Timestamp(iso8601: "2026-04-26T11:00:00Z"))
        #expect(policy.idCutoff(now: now) < policy.partitionCutoff(now: now))
    }

    @Test func everyTrimmedIdBelongsToAnEventTheCollectorWouldRefuse() throws {
        // The safety argument, checked over a grid: an id received before idCutoff belongs to an
        // event whose corrected time is at most maxFuture after its receipt, and such an event,
        // retried now, is older than the acceptance window.
        let limits = IngestLimits()
        let now = Timestamp(iso8601: "2027-06-01T12:00:00Z")!
        for keepDays in [400, 401, 500, 800] as [Int64] {
            let policy = try RetentionPolicy(keepSeconds: keepDays * day)
            let cutoff = policy.idCutoff(now: now).microseconds
            for receivedBefore in [1, 60_000_000, 86_400_000_000] as [Int64] {
                let latestEventTime = cutoff - receivedBefore + limits.maxFutureMicroseconds
                #expect(latestEventTime < now.microseconds - limits.maxEventAgeMicroseconds)
            }
        }
    }
}

@Suite struct PartitionDropTests {
    @Test func everyStateLeadsToDroppedAndEveryStepIsResumable() {
        // From any state the walk ends in markDropped, in at most three steps.
        for start in [PartitionDrop.State.attached, .detachPending, .detached, .gone] {
            var state: PartitionDrop.State? = start
            var steps: [PartitionDrop.Step] = []
            while let current = state {
                let step = PartitionDrop.next(current)
                steps.append(step)
                state = PartitionDrop.after(step)
                #expect(steps.count <= 4)
            }
            #expect(steps.last == .markDropped)
        }
        #expect(PartitionDrop.next(.attached) == .detachConcurrently)
        #expect(PartitionDrop.next(.detachPending) == .finalizeDetach)
        #expect(PartitionDrop.next(.detached) == .drop)
        #expect(PartitionDrop.next(.gone) == .markDropped)
    }
}
