import TapwireCore

/// Drops old partitions of events and trims old dedup ids; never touches the rollups. Safe to
/// run from cron: one run at a time (advisory lock), every step idempotent, an interrupted run
/// finished by the next. Partitions are detached CONCURRENTLY, so collectors keep writing. No
/// session state, so it runs through a transaction pooler (PgBouncer) as well as directly.
public struct RetentionStore: Sendable {
    public init() {}

    /// How long a step that takes a lock may wait for it (as `lock_timeout` would).
    static let stepSeconds = 30.0

    /// Only names the collector itself creates (tapwire_ensure_event_partitions) are dropped.
    static func isEventPartitionName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        return bytes.count == 15 && name.hasPrefix("events_") && bytes.dropFirst(7).allSatisfy { (48...57).contains($0) }
    }

    public func run(_ policy: RetentionPolicy, dryRun: Bool, on connection: PostgresConnection,
                    logger: Logger? = nil) throws -> RetentionOutcome {
        let now = try connection.query(EmbeddedSQL.retentionNow).value(Timestamp.self)
        var outcome = RetentionOutcome(dryRun: dryRun, ran: true, now: now, partitionCutoff: policy.partitionCutoff(now: now),
                                       idCutoff: policy.idCutoff(now: now), partitions: [], resumed: [], eventIdsDeleted: 0)
        let due = try duePartitions(before: outcome.partitionCutoff, on: connection)
        if dryRun {
            outcome.partitions = due
            outcome.resumed = try unfinished(on: connection)
            outcome.eventIdsDeleted = try connection.query(EmbeddedSQL.retentionCountIds, [outcome.idCutoff.description]).value(Int64.self)
            if let counts = try connection.query(EmbeddedSQL.retentionCountConversions, [due.map(\.rangeEnd).max()?.description]).namedRows.first {
                outcome.conversionCreditsDeleted = try counts.decode("credits")
                outcome.notificationConversionsDeleted = try counts.decode("notifications")
                outcome.attributionDevicesDeleted = try counts.decode("devices")
                outcome.holdoutAssignmentsDeleted = try counts.decode("assignments")
            }
            return outcome
        }
        guard let lock = try TransactionLock.tryAcquire(EmbeddedSQL.retentionLock, beside: connection) else {
            outcome.ran = false
            return outcome
        }
        defer { lock.release() }
        // Asked before each step: a run whose lock's session the server ended (a restart, a
        // failover, pg_terminate_backend) no longer runs alone, so it stops. Every step is
        // idempotent, so what it did is kept and the next run finishes the rest.
        let stillAlone = { () throws(RetentionError) in
            guard lock.isHeld else {
                throw RetentionError(code: .lockLost, message: "retention lost its lock mid-run (the server ended its session, "
                    + "application_name tapwire-lock), so another run may have started; what was done is kept: "
                    + "run `tapwire retention` again")
            }
        }

        let plannedBefore = Set(try unfinished(on: connection))
        for partition in try duePartitions(before: outcome.partitionCutoff, on: connection) {
            try connection.query(EmbeddedSQL.retentionPlanPartition, [partition.name, partition.rangeStart.description,
                                                                     partition.rangeEnd.description, partition.estimatedRows.map(String.init)])
        }
        let dueNames = Set(due.map(\.name))
        for name in try unfinished(on: connection) {
            guard Self.isEventPartitionName(name) else {
                throw RetentionError(code: .unexpectedPartition, message: "refusing to drop \(name): not a daily partition of events")
            }
            try stillAlone()
            try drop(name, on: connection, logger: logger)
            if plannedBefore.contains(name), !dueNames.contains(name) { outcome.resumed.append(name) }
        }
        outcome.partitions = due
        // The dropped partitions' conversions are gone: so are their credits (before the
        // horizon, tapwire_retention_horizon), and the rows of notifications no credit refers to.
        // Each trim in a transaction of its own without the server's timeouts: it grows with what
        // the horizon passed, and a statement_timeout would cut it at the same point every run
        // (docs/deployment.md, "The server's timeouts").
        let trim = { (statement: SQL) throws -> Int64 in
            try stillAlone()
            return Int64(try connection.transaction(timeouts: .off) { () throws(DatabaseError) in try connection.query(statement, [nil]).affectedRows })
        }
        outcome.conversionCreditsDeleted = try trim(EmbeddedSQL.retentionTrimConversionCredits)
        outcome.notificationConversionsDeleted = try trim(EmbeddedSQL.retentionTrimNotificationConversions)
        // The install ids held beside them: devices with no conversion left, assignments whose
        // window closed before the horizon. The rollups keep their counts.
        outcome.attributionDevicesDeleted = try trim(EmbeddedSQL.retentionTrimAttributionDevices)
        outcome.holdoutAssignmentsDeleted = try trim(EmbeddedSQL.retentionTrimHoldoutAssignments)

        var deleted: Int64 = 0
        while true {
            try stillAlone()
            let batch = try connection.query(EmbeddedSQL.retentionTrimIds, [outcome.idCutoff.description, String(policy.batchSize)]).affectedRows
            deleted += Int64(batch)
            if batch < policy.batchSize { break }
        }
        outcome.eventIdsDeleted = deleted
        logger?.info("retention done", ["partitions": .of(due.count), "eventIdsDeleted": .of(Int(deleted)),
                                        "conversionCreditsDeleted": .of(Int(outcome.conversionCreditsDeleted)),
                                        "notificationConversionsDeleted": .of(Int(outcome.notificationConversionsDeleted)),
                                        "attributionDevicesDeleted": .of(Int(outcome.attributionDevicesDeleted)),
                                        "holdoutAssignmentsDeleted": .of(Int(outcome.holdoutAssignmentsDeleted))])
        return outcome
    }

    func duePartitions(before cutoff: Timestamp, on connection: PostgresConnection) throws -> [RetainedPartition] {
        // Only the collector's own partitions: a partition named otherwise is never dropped.
        try connection.query(EmbeddedSQL.retentionDuePartitions, [cutoff.description]).decode(RetainedPartition.self)
            .filter { Self.isEventPartitionName($0.name) }
    }

    /// The partitions a run planned to drop and has not recorded as dropped.
    func unfinished(on connection: PostgresConnection) throws(DatabaseError) -> [String] {
        try connection.query(EmbeddedSQL.retentionUnfinished).namedRows.map { (row) throws(DatabaseError) in try row.decode("partition_name") }
    }

    /// Walks one partition through PartitionDrop's steps until it is recorded as dropped.
    func drop(_ name: String, on connection: PostgresConnection, logger: Logger?) throws {
        for _ in 0..<8 {
            guard let row = try connection.query(EmbeddedSQL.retentionPartitionState, [name]).namedRows.first else {
                throw DatabaseError(.unexpectedResult, "no state for partition \(name)", query: EmbeddedSQL.retentionPartitionState.name)
            }
            let present: Bool = try row.decode("present"), attached: Bool = try row.decode("attached")
            let detachPending: Bool = try row.decode("detach_pending")
            let detach: String = try row.decode("detach_sql"), finalize: String = try row.decode("finalize_sql")
            let dropSQL: String = try row.decode("drop_sql")
            let state: PartitionDrop.State = !present ? .gone : !attached ? .detached : detachPending ? .detachPending : .attached
            let step = PartitionDrop.next(state)
            // Statements retention_partition_state.sql built for this partition, named by their
            // step. Waiting behind a long lock queue would stall collectors queued behind a step:
            // each gives up after `Self.stepSeconds` instead (the next run retries). A session
            // lock_timeout would outlive the run behind a transaction pooler; the detach steps
            // cannot run in a transaction block, so the client cancels them.
            switch step {
            case .detachConcurrently:
                try connection.query(SQL(detach, name: "retention: detach partition \(name) concurrently"), cancellingAfter: Self.stepSeconds)
            case .finalizeDetach:
                try connection.query(SQL(finalize, name: "retention: finalize the detach of \(name)"), cancellingAfter: Self.stepSeconds)
            case .drop:
                // Its own lock_timeout (30 s) after the server's timeouts are off.
                try connection.transaction(timeouts: .off) { () throws(DatabaseError) in
                    try connection.query(EmbeddedSQL.retentionDropLockTimeout)
                    try connection.query(SQL(dropSQL, name: "retention: drop partition \(name)"))
                }
            case .markDropped:
                try connection.query(EmbeddedSQL.retentionMarkDropped, [name])
                logger?.info("partition dropped", ["partition": .string(name)])
                return
            }
        }
        throw RetentionError(code: .stuck, message: "partition \(name) did not reach dropped; run `tapwire retention` again")
    }
}
