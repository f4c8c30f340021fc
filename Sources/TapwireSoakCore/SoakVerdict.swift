import Foundation

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
