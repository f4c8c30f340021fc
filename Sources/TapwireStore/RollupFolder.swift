import Foundation
import Synchronization
import TapwireCore
import TapwireLifecycle

/// The collector's background fold: every `intervalSeconds` (10 by default), or sooner once
/// `eventsPerFold` events have been stored since the last fold started (`stored(events:)`), it
/// sums the rollup deltas group commits appended and writes them into the rollup tables
/// (`RollupStore.fold`; migrations 0050, 0060), so each rollup key is upserted once per fold, not
/// once per commit, and readers that go to the tables directly (dashboards) lag by about that
/// much. A fold's rows grow slower than its events, so fewer, larger folds cost less per event;
/// the bound keeps a fold's backlog, and a waking reader's wait, from growing with the rate
/// (docs/ingestion.md, "The fold's cadence"). The collector's
/// exact readers (its reports, findings and monitor) do not fold themselves: they wait for this
/// fold (`folds`, `SharedFolds`), which a reader wakes instead of letting it sleep out its
/// interval: it starts `readerRestSeconds` after the previous fold's end (at once if that has
/// passed), so readers back to back cause at most one fold per rest; the next interval counts
/// from that fold. After each fold it also summarises the
/// BRIN ranges of events that commits filled since. A database that is down is retried with
/// backoff. A `Service`: shut down, it folds once more, so it drains after the group committer.
///
/// With more than one connection (3, the collector's default) a fold runs its shares at once,
/// each in its own transaction on its own connection (`FoldShares`): the engagement deltas on
/// this thread, attribution's parts and the holdouts on workers'; the deltas' transaction applies
/// the strata changes to the conversions once the others have committed, then commits, and only
/// then are the readers told (docs/ingestion.md, "The fold's shares"). With 1, one transaction
/// does it all in turn.
public final class RollupFolder: Service {
    public let name = "rollup-fold"
    private let databaseURL: String
    private let intervalSeconds: Double
    private let eventsPerFold: Int
    /// The fold's shares and their workers (one transaction on this thread's connection with 1).
    private let shares: FoldShares
    /// Events stored since the last fold started (this collector's commits only).
    private let storedSinceFold = Atomic<Int>(0)
    private let logger: Logger
    private let watch: IdleConnectionWatch
    private let background: BackgroundLoop
    private let onFold: @Sendable (_ rows: Int, _ seconds: Double) -> Void
    /// The folds the collector's exact readers wait for (docs/reports.md, "A report in the
    /// collector shares the fold").
    public let folds: SharedFolds

    /// `eventsPerFold`: events stored since the last fold's start that start the next fold before
    /// the interval ends.
    /// `connections`: 1, one transaction on one connection; 2, the fold's shares at once, one
    /// connection each; up to `FoldShares.maxConnections`, attribution's parts at once too.
    /// `readerWaitSeconds`: how long a reader waits for a fold before folding itself.
    /// `readerRestSeconds`: the least time from a fold's end to the start of a fold a reader wakes.
    /// `onReaderWait`: each reader's wait, how it ended (`shared`, or why it folded itself) and
    /// how long it took.
    /// `watch`: where the fold, its shares and the readers waiting for it say they replaced a
    /// connection the server closed while it sat idle (by default, in `logger` alone).
    public init(databaseURL: String, intervalSeconds: Double = 10, eventsPerFold: Int = .max, connections: Int = 1,
                readerWaitSeconds: Double = 30, readerRestSeconds: Double = 0, logger: Logger, watch: IdleConnectionWatch? = nil,
                onReaderWait: @escaping @Sendable (_ outcome: String, _ seconds: Double) -> Void = { _, _ in },
                onFold: @escaping @Sendable (_ rows: Int, _ seconds: Double) -> Void = { _, _ in }) {
        self.databaseURL = databaseURL
        self.intervalSeconds = intervalSeconds
        self.eventsPerFold = max(1, eventsPerFold)
        let watch = watch ?? IdleConnectionWatch(logger: logger)
        self.watch = watch
        shares = FoldShares(databaseURL: databaseURL, connections: connections, applicationName: "tapwire-rollup-fold", watch: watch)
        self.logger = logger
        self.onFold = onFold
        let background = BackgroundLoop(name: "tapwire-rollup-fold")
        self.background = background
        folds = SharedFolds(maxWaitSeconds: readerWaitSeconds, restSeconds: readerRestSeconds, wakeFolder: { background.wake() }, onWait: onReaderWait, watch: watch)
    }

    private let stopping = ShutdownSignal()

    /// Folds until shut down, then once more.
    public func run(ready: @escaping @Sendable () -> Void) throws {
        background.run(ready: ready, until: stopping) { [self] _ in
            shares.start()
            loop()
            shares.stop()
            folds.stop()
        }
    }

    public func shutdown() { stopping.raise() }

    /// A group commit stored `events` new events: the one that takes the count since the last
    /// fold's start to `eventsPerFold` wakes the folder.
    public func stored(events: Int) {
        guard events > 0 else { return }
        let (_, total) = storedSinceFold.wrappingAdd(events, ordering: .relaxed)
        if total >= eventsPerFold && total - events < eventsPerFold { background.wake() }
    }

    private func loop() {
        // Closed by the server while idle since the last fold (idle_session_timeout, a pooler's,
        // a restart): replaced before the fold would fail on it.
        var connection = LoopConnection(name: "tapwire-rollup-fold", watch: watch) { [databaseURL] () throws(DatabaseError) in
            try PostgresConnection(url: databaseURL, applicationName: "tapwire-rollup-fold", serverTimeouts: .off)
        }
        var backoff = Backoff(baseSeconds: 0.2, maxSeconds: 5)
        var random = SystemRandomNumberGenerator()
        var summarizeFailure: String?
        while true {
            let stopping = !background.isRunning
            // A fold starts with its connection: readers waiting while the database is away are
            // told it failed, not left to their bound.
            folds.foldStarting()
            // What commits store from now on is the next fold's, whether or not this one takes it.
            storedSinceFold.store(0, ordering: .relaxed)
            do {
                let db = try connection.ready()
                let started = monotonicNanoseconds()
                let rows = try shares.fold(on: db)
                onFold(rows, secondsSince(started))
                // Committed (and counted): the readers waiting for it read now, before the summaries below.
                folds.foldFinished(succeeded: true)
                backoff.reset()
                // The BRIN summaries of the pages commits filled since (migration 0070): a range
                // not yet summarised would match every read of events by time. Its failure (a
                // role that does not own events, say) must not hold up the folds: logged when
                // it starts failing, or fails otherwise, not every fold.
                do {
                    try db.query(EmbeddedSQL.summarizeEventRanges)
                    summarizeFailure = nil
                } catch {
                    let failure = error.code.rawValue + "/" + (error.sqlState ?? "")
                    if failure != summarizeFailure {
                        logger.warning("summarising the BRIN ranges of events failed; reads by time scan the ranges not yet summarised",
                                       ["code": .string(error.code.rawValue), "sqlstate": .string(error.sqlState ?? "")])
                    }
                    summarizeFailure = failure
                }
                if stopping { break }
                // The interval, unless a reader wants a fold first: then the rest after this
                // fold (or the loop is stopped); or unless `eventsPerFold` events were stored
                // since this fold started. A wake-up a fold already served (its reader woke it as
                // it started) pauses again, and so does one that comes during the rest.
                let due = monotonicNanoseconds() + UInt64(max(0, intervalSeconds) * 1e9)
                while background.isRunning, storedSinceFold.load(ordering: .relaxed) < eventsPerFold {
                    let now = monotonicNanoseconds()
                    let next = min(due, folds.wantedFoldStartsAt ?? .max)
                    if now >= next { break }
                    background.pause(seconds: Double(next - now) / 1e9)
                }
            } catch {
                folds.foldFinished(succeeded: false)
                if stopping { break }
                logger.warning("rollup fold failed", ["code": .string(error.code.rawValue), "sqlstate": .string(error.sqlState ?? "")])
                background.pause(seconds: backoff.nextDelay(using: &random))
            }
        }
        connection.close()
    }
}
