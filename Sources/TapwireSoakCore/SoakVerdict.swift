import Foundation

/// Everything the soak gathered once recording, faults and the drain are over: the clients' logs
/// and counts, the database's answers, the collector's figures. Plain values, so the verdict is a
/// function of them and testable without processes or a database.
public struct SoakFacts: Sendable {
    /// One client's log of recorded ids and what its SDK reported.
    public struct Client: Sendable {
        public var index: Int
        /// The queue filled past its cap by the schedule's fault (not a paced client).
        public var isCapped: Bool
        /// The ids in its log, in the order recorded.
        public var ids: [String]
        /// Dropped at the queue cap, as the drain reported it (the count is kept across processes); 0 if the drain did not run.
        public var dropped: Int
        /// Rejected by the collector over all its runs, drain included; 0 if the drain did not run.
        public var rejected: Int
        /// Its harness processes kill -9'd by the schedule.
        public var killed: Int
        /// Harness runs while recording, and runs that could not start.
        public var rounds: Int
        public var startFailures: Int

        public init(index: Int, isCapped: Bool, ids: [String], dropped: Int, rejected: Int, killed: Int, rounds: Int, startFailures: Int) {
            self.index = index
            self.isCapped = isCapped
            self.ids = ids
            self.dropped = dropped
            self.rejected = rejected
            self.killed = killed
            self.rounds = rounds
            self.startFailures = startFailures
        }
    }

    /// The whole run, bench included, and the recording time (`--seconds`).
    public var totalSeconds: Double
    public var recordingSeconds: Double
    public var targetRate: Double
    public var benchPeak: Double?
    /// The paced clients first, then the capped one.
    public var clients: [Client]
    /// The app's stored event ids, one per row (`soak_stored_ids.sql`).
    public var storedRows: [String]
    /// The row of `soak_integrity.sql`; its third column counts dedup claims without an event.
    public var integrityRow: [String?]
    /// Events still queued after every drain.
    public var remaining: Int
    public var drainFailures: [String]
    /// Whether the pending rollup deltas were folded before the digest.
    public var rollupsFolded: Bool
    /// `tapwire rollups rebuild`'s exit status, nil if it did not run.
    public var rebuildStatus: Int32?
    /// `soak_rollups_digest.sql` before and after the rebuild (each column "rows:digest"), and
    /// after the SQL recomputation from raw events (the oracle; empty if it failed).
    public var digestBefore: [String?]
    public var digestAfter: [String?]
    public var digestOracle: [String?]
    /// `soak_mismatch_usage_diff.sql`: two counts of differing rows, both "0" when equal.
    public var usageDiff: [String?]
    public var collectorPeakRSS: Int
    public var collectorRestarts: Int
    public var maxRSSMiB: Int
    /// "name: outcome" per fault, in the order they fired, and the faults that could not be put in place.
    public var faultLog: [String]
    public var faultsNotInjected: [String]

    public init(totalSeconds: Double, recordingSeconds: Double, targetRate: Double, benchPeak: Double?, clients: [Client],
                storedRows: [String], integrityRow: [String?], remaining: Int, drainFailures: [String],
                rollupsFolded: Bool, rebuildStatus: Int32?, digestBefore: [String?], digestAfter: [String?], digestOracle: [String?], usageDiff: [String?],
                collectorPeakRSS: Int, collectorRestarts: Int, maxRSSMiB: Int, faultLog: [String], faultsNotInjected: [String]) {
        self.totalSeconds = totalSeconds
        self.recordingSeconds = recordingSeconds
        self.targetRate = targetRate
        self.benchPeak = benchPeak
        self.clients = clients
        self.storedRows = storedRows
        self.integrityRow = integrityRow
        self.remaining = remaining
        self.drainFailures = drainFailures
        self.rollupsFolded = rollupsFolded
        self.rebuildStatus = rebuildStatus
        self.digestBefore = digestBefore
        self.digestAfter = digestAfter
        self.digestOracle = digestOracle
        self.usageDiff = usageDiff
        self.collectorPeakRSS = collectorPeakRSS
        self.collectorRestarts = collectorRestarts
        self.maxRSSMiB = maxRSSMiB
        self.faultLog = faultLog
        self.faultsNotInjected = faultsNotInjected
    }
}

/// The soak's checks over the facts: recorded = stored + dropped per client, no duplicates, no
/// orphan dedup claims, rollups equal to a rebuild, mismatch usage equal to raw, peak RSS under
/// the cap, every fault injected. `problems` empty is a PASS.
public struct SoakVerdict: Sendable {
    public let problems: [String]
    /// The figures the soak prints before its PASS or FAIL.
    public let figures: [String]

    public var passed: Bool { problems.isEmpty }

    /// The lines to print: the figures, then `soak: PASS`, or `soak: FAIL` and the problems (what
    /// the Makefile and CI read).
    public var lines: [String] {
        figures + (passed ? ["soak: PASS"] : ["soak: FAIL"] + problems.map { "  - " + $0 })
    }

    /// Each client's batch in flight, at most, that a fault can cut the answer of.
    static let batchSize = 500

    public init(_ facts: SoakFacts) {
        let paced = facts.clients.filter { !$0.isCapped }
        let cappedIds = facts.clients.first(where: \.isCapped)?.ids ?? []
        var recordedIds = Set<String>()
        var recordedLines = 0
        for client in facts.clients {
            recordedLines += client.ids.count
            recordedIds.formUnion(client.ids)
        }
        let stored = Set(facts.storedRows)
        let integrity = facts.integrityRow
        let orphanClaims = Int(integrity.count > 2 ? integrity[2] ?? "-1" : "-1") ?? -1
        let missing = recordedIds.subtracting(stored)
        let unlogged = stored.subtracting(recordedIds)
        let duplicatesStored = facts.storedRows.count - stored.count
        // The capped queue drops oldest first: what is missing of it must be exactly its first ids.
        let cappedMissing = cappedIds.filter { !stored.contains($0) }
        let cappedPrefixOK = Set(cappedMissing) == Set(cappedIds.prefix(cappedMissing.count))

        // The rollups as the group commits left them (pending deltas folded) against the rebuild
        // and against the SQL recomputation (the oracle).
        let before = facts.digestBefore, after = facts.digestAfter, oracle = facts.digestOracle
        let rollupsOK = facts.rollupsFolded && facts.rebuildStatus == 0 && !before.isEmpty && before == after && before == oracle
            && (before.first ?? nil)?.hasPrefix("0:") == false
        let usageOK = facts.usageDiff.count == 2 && facts.usageDiff.allSatisfy { $0 == "0" }

        let kills = paced.reduce(0) { $0 + $1.killed }
        let achieved = Double(recordedLines - cappedIds.count) / facts.recordingSeconds
        let peakMiB = Double(facts.collectorPeakRSS) / 1_048_576
        let dropped = facts.clients.reduce(0) { $0 + $1.dropped }
        let rejectedTotal = facts.clients.reduce(0) { $0 + $1.rejected }
        var problems: [String] = []
        // Per client: every recorded event not stored must be one its SDK dropped (queue cap, oldest
        // first) or the collector rejected. A drop can also hit an event the collector had stored when
        // its 200 never reached the client (the client or the collector killed mid-request, PostgreSQL
        // crashed mid-commit): each such fault costs at most the one batch (500) a client has in flight.
        let answerLosingFaults = facts.collectorRestarts + 1 // the collector kill, the PostgreSQL crash
        var storedAnywayTotal = 0
        var perClientLines: [String] = []
        for client in facts.clients {
            let ids = client.ids
            let lost = ids.filter { !stored.contains($0) }.count
            let reported = client.dropped + client.rejected
            let storedAnyway = reported - lost
            storedAnywayTotal += max(0, storedAnyway)
            let bound = client.isCapped ? 0 : (client.killed + answerLosingFaults) * Self.batchSize
            perClientLines.append("client \(client.index)\(client.isCapped ? " (capped)" : ""): recorded \(ids.count), not stored \(lost), SDK dropped \(client.dropped), rejected \(client.rejected), dropped after being stored \(storedAnyway)")
            if lost > reported {
                problems.append("client \(client.index): \(lost - reported) recorded events are lost: not stored, and neither dropped nor rejected by the SDK")
            } else if storedAnyway > bound {
                problems.append("client \(client.index): the SDK reported \(storedAnyway) more drops than events missing, over the \(bound) its faults explain")
            }
        }
        if !cappedPrefixOK { problems.append("the capped queue lost events other than its oldest") }
        if duplicatesStored != 0 { problems.append("\(duplicatesStored) duplicate rows stored") }
        if orphanClaims != 0 { problems.append("\(orphanClaims) dedup claims have no event row") }
        if unlogged.count > kills { problems.append("\(unlogged.count) stored events are in no client's log (at most one per client kill, \(kills), can be)") }
        if facts.remaining != 0 { problems.append("\(facts.remaining) events still queued after the drain") }
        if !rollupsOK { problems.append("the rollups differ from a recomputation from raw events (before \(before), after the rebuild \(after), the SQL oracle \(oracle), rebuild \(facts.rebuildStatus ?? -1))") }
        if !usageOK { problems.append("the mismatch usage rollups differ from the raw events (\(facts.usageDiff))") }
        if peakMiB > Double(facts.maxRSSMiB) { problems.append(String(format: "collector peak RSS %.0f MiB is over the %d MiB cap", peakMiB, facts.maxRSSMiB)) }
        problems += facts.drainFailures
        problems += facts.faultsNotInjected.map { "a fault of the schedule was not injected: \($0)" }
        self.problems = problems

        var figures = [
            "",
            "== soak figures (\(String(format: "%.0f", facts.totalSeconds)) s in all)",
            String(format: "rate:               %.0f events/s recorded on average (target %.0f%@)", achieved, facts.targetRate,
                   facts.benchPeak.map { String(format: ", %.0f%% of the bench peak %.0f", achieved / $0 * 100, $0) } ?? ""),
            "events recorded:    \(recordedLines) (distinct ids \(recordedIds.count), in \(facts.clients.count) client logs)",
            "events stored:      \(stored.count) of them (\(facts.storedRows.count) rows)",
            "events dropped:     \(missing.count) recorded events not stored; the SDKs reported \(dropped) dropped at their queue caps and \(rejectedTotal) rejected (\(storedAnywayTotal) of those drops were of events already stored, whose 200 a kill or crash cut off)",
        ]
        figures += perClientLines.map { "  " + $0 }
        figures += [
            "duplicates stored:  \(duplicatesStored)",
            "orphan dedup claims: \(orphanClaims)",
            "stored, not logged: \(unlogged.count) (a kill between record and log write leaves at most one per kill)",
            "rollups vs rebuild and SQL oracle: \(rollupsOK ? "identical" : "DIFFERENT") (rows:digest \(before.compactMap { $0?.split(separator: ":").first }.joined(separator: "/")))",
            "mismatch usage vs raw: \(usageOK ? "identical" : "DIFFERENT \(facts.usageDiff)")",
            String(format: "collector peak RSS: %.1f MiB (cap %d MiB), restarts %d", peakMiB, facts.maxRSSMiB, facts.collectorRestarts),
            "client kills:       \(kills); harness runs: \(paced.reduce(0) { $0 + $1.rounds }); failed to start: \(paced.reduce(0) { $0 + $1.startFailures })",
            "faults injected:",
        ]
        figures += facts.faultLog.map { "  - " + $0 }
        self.figures = figures
    }
}
