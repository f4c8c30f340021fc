import Testing
@testable import TapwireSoakCore

/// Ids that look like the logs' (36 characters), distinct per client and number.
private func id(_ client: Int, _ n: Int) -> String { "00000000-0000-7000-8000-\(String(format: "%06d%06d", client, n))" }

/// A clean run: two paced clients with everything stored, the capped client missing its 3 oldest
/// (dropped by the cap), every check of the database fine.
private func cleanFacts() -> SoakFacts {
    let paced0 = (0..<100).map { id(0, $0) }
    let paced1 = (0..<80).map { id(1, $0) }
    let capped = (0..<10).map { id(2, $0) }
    return SoakFacts(
        totalSeconds: 83.4, recordingSeconds: 60, targetRate: 1500, benchPeak: nil,
        clients: [
            .init(index: 0, isCapped: false, ids: paced0, dropped: 0, rejected: 0, killed: 1, rounds: 12, startFailures: 0),
            .init(index: 1, isCapped: false, ids: paced1, dropped: 0, rejected: 0, killed: 1, rounds: 11, startFailures: 1),
            .init(index: 2, isCapped: true, ids: capped, dropped: 3, rejected: 0, killed: 0, rounds: 0, startFailures: 0),
        ],
        storedRows: paced0 + paced1 + capped.dropFirst(3), integrityRow: ["187", "187", "0"], remaining: 0, drainFailures: [],
        rollupsFolded: true, rebuildStatus: 0, digestBefore: ["12:abc", "4:def"], digestAfter: ["12:abc", "4:def"],
        digestOracle: ["12:abc", "4:def"], usageDiff: ["0", "0"],
        collectorPeakRSS: 40 * 1_048_576, collectorRestarts: 1, maxRSSMiB: 512,
        faultLog: ["slow database (pg_sleep(0.25) before every id claim): for 5 s"], faultsNotInjected: [])
}

@Suite struct SoakVerdictTests {
    @Test func aCleanRunPassesWithItsFigures() {
        let verdict = SoakVerdict(cleanFacts())
        #expect(verdict.passed, "\(verdict.problems)")
        #expect(verdict.lines.last == "soak: PASS")
        #expect(verdict.figures == [
            "",
            "== soak figures (83 s in all)",
            "rate:               3 events/s recorded on average (target 1500)",
            "events recorded:    190 (distinct ids 190, in 3 client logs)",
            "events stored:      187 of them (187 rows)",
            "events dropped:     3 recorded events not stored; the SDKs reported 3 dropped at their queue caps and 0 rejected (0 of those drops were of events already stored, whose 200 a kill or crash cut off)",
            "  client 0: recorded 100, not stored 0, SDK dropped 0, rejected 0, dropped after being stored 0",
            "  client 1: recorded 80, not stored 0, SDK dropped 0, rejected 0, dropped after being stored 0",
            "  client 2 (capped): recorded 10, not stored 3, SDK dropped 3, rejected 0, dropped after being stored 0",
            "duplicates stored:  0",
            "orphan dedup claims: 0",
            "stored, not logged: 0 (a kill between record and log write leaves at most one per kill)",
            "rollups vs rebuild and SQL oracle: identical (rows:digest 12/4)",
            "mismatch usage vs raw: identical",
            "collector peak RSS: 40.0 MiB (cap 512 MiB), restarts 1",
            "client kills:       2; harness runs: 23; failed to start: 1",
            "faults injected:",
            "  - slow database (pg_sleep(0.25) before every id claim): for 5 s",
        ])
    }

    @Test func theRateLineComparesWithTheBenchPeak() {
        var facts = cleanFacts()
        facts.clients[0].ids = (0..<60_000).map { id(0, $0) }
        facts.storedRows += facts.clients[0].ids.dropFirst(100)
        facts.benchPeak = 2000
        // (60,000 + 80) paced events in 60 s: 1001 events/s, 50% of 2000.
        #expect(SoakVerdict(facts).figures[2] == "rate:               1001 events/s recorded on average (target 1500, 50% of the bench peak 2000)")
    }

    @Test func anEventNeitherStoredNorDroppedIsLost() {
        var facts = cleanFacts()
        facts.storedRows.removeAll { $0 == id(1, 7) }
        let verdict = SoakVerdict(facts)
        #expect(!verdict.passed)
        #expect(verdict.problems == ["client 1: 1 recorded events are lost: not stored, and neither dropped nor rejected by the SDK"])
        #expect(verdict.lines.suffix(2) == ["soak: FAIL", "  - client 1: 1 recorded events are lost: not stored, and neither dropped nor rejected by the SDK"])
    }

    @Test func aRejectedEventIsNotLost() {
        var facts = cleanFacts()
        facts.storedRows.removeAll { $0 == id(1, 7) }
        facts.clients[1].rejected = 1
        #expect(SoakVerdict(facts).passed)
    }

    @Test func dropsOfStoredEventsAreBoundedByTheFaults() {
        // Client 0: 1 kill + (1 restart + 1 crash) = 3 faults, 500 each.
        var facts = cleanFacts()
        facts.clients[0].dropped = 1500
        #expect(SoakVerdict(facts).passed)
        facts.clients[0].dropped = 1501
        #expect(SoakVerdict(facts).problems == ["client 0: the SDK reported 1501 more drops than events missing, over the 1500 its faults explain"])
        // The capped queue's drops are all of unsent events: none may have been stored.
        facts = cleanFacts()
        facts.clients[2].dropped = 4
        #expect(SoakVerdict(facts).problems == ["client 2: the SDK reported 1 more drops than events missing, over the 0 its faults explain"])
    }

    @Test func theCappedQueueLosesOnlyItsOldest() {
        var facts = cleanFacts()
        facts.storedRows = facts.storedRows.filter { $0 != id(2, 9) } + [id(2, 0)]
        #expect(SoakVerdict(facts).problems.contains("the capped queue lost events other than its oldest"))
    }

    @Test func databaseChecks() {
        var facts = cleanFacts()
        facts.storedRows.append(id(0, 3))
        facts.integrityRow = ["188", "187", "2"]
        facts.remaining = 4
        #expect(SoakVerdict(facts).problems == [
            "1 duplicate rows stored", "2 dedup claims have no event row", "4 events still queued after the drain",
        ])
        facts = cleanFacts()
        facts.integrityRow = []
        #expect(SoakVerdict(facts).problems == ["-1 dedup claims have no event row"])
    }

    @Test func storedEventsInNoLogAreBoundedByClientKills() {
        var facts = cleanFacts()
        facts.storedRows += [id(7, 1), id(7, 2)]
        #expect(SoakVerdict(facts).passed, "two kills, two unlogged")
        facts.storedRows.append(id(7, 3))
        #expect(SoakVerdict(facts).problems == ["3 stored events are in no client's log (at most one per client kill, 2, can be)"])
    }

    @Test func rollupsMustEqualTheRebuildAfterTheFold() {
        var facts = cleanFacts()
        facts.digestAfter = ["12:abc", "4:xyz"]
        let different = SoakVerdict(facts)
        #expect(different.problems == [#"the rollups differ from a recomputation from raw events (before [Optional("12:abc"), Optional("4:def")], after the rebuild [Optional("12:abc"), Optional("4:xyz")], the SQL oracle [Optional("12:abc"), Optional("4:def")], rebuild 0)"#])
        #expect(different.figures.contains("rollups vs rebuild and SQL oracle: DIFFERENT (rows:digest 12/4)"))
        for change in [{ (f: inout SoakFacts) in f.rollupsFolded = false },
                       { $0.rebuildStatus = nil },
                       { $0.rebuildStatus = 1 },
                       { $0.digestBefore = []; $0.digestAfter = [] },
                       { $0.digestOracle = ["12:abc", "4:xyz"] },
                       { $0.digestOracle = [] },
                       { $0.digestBefore = ["0:", "4:def"]; $0.digestAfter = ["0:", "4:def"] }] {
            facts = cleanFacts()
            change(&facts)
            #expect(!SoakVerdict(facts).passed)
        }
    }

    @Test func mismatchUsageMustEqualRaw() {
        var facts = cleanFacts()
        facts.usageDiff = ["0", "2"]
        let verdict = SoakVerdict(facts)
        #expect(verdict.problems == [#"the mismatch usage rollups differ from the raw events ([Optional("0"), Optional("2")])"#])
        #expect(verdict.figures.contains(#"mismatch usage vs raw: DIFFERENT [Optional("0"), Optional("2")]"#))
        facts.usageDiff = ["0"]
        #expect(!SoakVerdict(facts).passed)
    }

    @Test func peakRSSOverTheCapFails() {
        var facts = cleanFacts()
        facts.collectorPeakRSS = 512 * 1_048_576
        #expect(SoakVerdict(facts).passed, "at the cap is fine")
        facts.collectorPeakRSS = 600 * 1_048_576
        #expect(SoakVerdict(facts).problems == ["collector peak RSS 600 MiB is over the 512 MiB cap"])
    }

    @Test func drainFailuresAndFaultsNotInjectedFailLast() {
        var facts = cleanFacts()
        facts.drainFailures = ["client 1: the drain did not run"]
        facts.faultsNotInjected = ["slow database: could not connect to PostgreSQL to install it"]
        facts.remaining = 1
        #expect(SoakVerdict(facts).problems == [
            "1 events still queued after the drain",
            "client 1: the drain did not run",
            "a fault of the schedule was not injected: slow database: could not connect to PostgreSQL to install it",
        ])
    }
}
