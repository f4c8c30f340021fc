/// The folds a collector's exact readers wait for instead of folding themselves (docs/reports.md,
/// "A report in the collector shares the fold"). A reader takes a ticket: the first fold that
/// starts after it. Every batch acknowledged before the ticket is pending or folded when that fold
/// starts, so once it has committed the reader counts it. The background fold, woken, serves every
/// ticket waiting at that moment. A fold a reader wants starts no sooner than `restNanoseconds`
/// after the previous fold finished (`wantedFoldStartsAt`), so readers back to back share one
/// fold per rest instead of each adding a fold's fixed cost to ingestion's (docs/reports.md, "A
/// report in the collector shares the fold"). Pure: the folder and the readers drive it under one
/// lock (`SharedFolds` in TapwireStore), with the monotonic clock's nanoseconds, and the tests
/// drive it step by step.
public struct FoldRequests: Sendable, Equatable {
    /// The number of the first fold a reader waits for: one that starts after the ticket was taken.
    public struct Ticket: Sendable, Hashable {
        public let fold: UInt64
    }

    /// Why a reader folds itself after all (a label of `tapwire_read_fold_waits_total`).
    public enum Fallback: String, Sendable, Equatable {
        /// The fold it waited for failed, or the folder's last fold failed and it is backing off
        /// (the database is away, the role may not write, a standby): its own fold says why, or
        /// reads without folding where the role may not write, as outside the collector.
        case foldFailed = "fold_failed"
        /// The folder has stopped (the collector is shutting down).
        case stopped
        /// It waited its bound (`SharedFolds.maxWaitSeconds`) and the fold had not committed.
        case timedOut = "timed_out"
    }

    /// What a reader holding a ticket does now.
    public enum Answer: Sendable, Equatable {
        /// A fold that started after the ticket has committed: read.
        case folded
        /// Wait for the folder; `wakeFolder`: it sleeps out its interval and this reader wakes it
        /// (one wake-up per fold, however many readers ask).
        case wait(wakeFolder: Bool)
        /// Fold on its own connection, as a reader outside the collector does.
        case foldYourself(Fallback)
    }

    /// Folds started so far: the running one's number while one runs.
    public private(set) var started: UInt64 = 0
    public private(set) var running = false
    public private(set) var lastSucceeded: UInt64 = 0
    public private(set) var lastFailed: UInt64 = 0
    /// A reader waits for a fold that has not started: the folder folds at once, not after its
    /// interval. Set, it also means the folder needs no other wake-up.
    public private(set) var wanted = false
    public private(set) var stopped = false
    /// The least time from a fold's end to the start of the next fold a reader wants.
    public let restNanoseconds: UInt64
    /// When the last fold finished (monotonic nanoseconds); nil before the first.
    public private(set) var lastFinishedAt: UInt64?

    public init(restNanoseconds: UInt64 = 0) {
        self.restNanoseconds = restNanoseconds
    }

    /// A reader's ticket, taken when its request arrives (before it queues for a connection).
    public func ticket() -> Ticket { Ticket(fold: started + 1) }

    public mutating func answer(_ ticket: Ticket) -> Answer {
        if lastSucceeded >= ticket.fold { return .folded }
        if lastFailed >= ticket.fold { return .foldYourself(.foldFailed) }
        // Its fold (or a later one) runs: wait for it.
        if started >= ticket.fold { return .wait(wakeFolder: false) }
        if stopped { return .foldYourself(.stopped) }
        // The folder is backing off after a failure: do not wait out its backoff.
        if lastFailed > lastSucceeded { return .foldYourself(.foldFailed) }
        // Wanted already: asked while a fold ran (the folder looks when it finishes), or the
        // folder was woken by the reader that asked first.
        let wasWanted = wanted
        wanted = true
        return .wait(wakeFolder: !running && !wasWanted)
    }

    /// Whether a reader wants a fold that has not started (the folder needs no other wake-up).
    public var foldWanted: Bool { wanted && !stopped }

    /// When the folder starts the fold a reader wants, rather than sleeping out its interval: the
    /// previous fold's end plus the rest (at once before any fold finished). Nil: none is wanted,
    /// or a fold runs (the folder looks again when it finishes).
    public var wantedFoldStartsAt: UInt64? {
        guard foldWanted, !running else { return nil }
        guard let lastFinishedAt else { return 0 }
        return lastFinishedAt &+ restNanoseconds
    }

    /// The folder starts a fold; returns its number.
    @discardableResult
    public mutating func foldStarting() -> UInt64 {
        started += 1
        running = true
        wanted = false
        return started
    }

    /// The running fold committed (or failed) at `now`: every ticket it serves is answered.
    public mutating func foldFinished(succeeded: Bool, at now: UInt64) {
        guard running else { return }
        running = false
        lastFinishedAt = now
        if succeeded { lastSucceeded = started } else { lastFailed = started }
    }

    /// The folder has made its last fold: later tickets fold themselves.
    public mutating func stop() {
        stopped = true
        wanted = false
    }
}
