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
