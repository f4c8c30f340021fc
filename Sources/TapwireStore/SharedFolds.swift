import Dispatch
import Synchronization
import TapwireCore

/// The collector's background fold (`RollupFolder`) shared with its exact readers: a reader takes
/// a ticket when its request arrives (`readFold`) and, before reading, waits until a fold that
/// started after it has committed, waking the folder if it sleeps (`FoldRequests` decides). Every
/// reader waiting at that moment is served by that one fold, and the database does no fold beyond
/// the folder's. A reader falls back to folding itself when the folder cannot serve it: its fold
/// failed or it backs off after one, it has stopped, or `maxWaitSeconds` passed.
public final class SharedFolds: Sendable {
    private struct State {
        var requests: FoldRequests
        /// The readers waiting, each woken when a fold finishes to look at its ticket again.
        var waiters: [UInt64: DispatchSemaphore] = [:]
        var nextWaiter: UInt64 = 0
    }

    private let state: Mutex<State>
    private let wakeFolder: @Sendable () -> Void
    /// How long a reader waits for the fold before it folds itself.
    public let maxWaitSeconds: Double
    /// Each reader's wait: how it ended (`shared`, or why it folded itself) and how long it took.
    private let onWait: @Sendable (_ outcome: String, _ seconds: Double) -> Void
    /// Where a reader says it replaced its connection, which the server closed while it waited.
    let watch: IdleConnectionWatch

    /// `restSeconds`: the least time from a fold's end to the next fold a reader wakes
    /// (`FoldRequests.restNanoseconds`).
    init(maxWaitSeconds: Double, restSeconds: Double = 0, wakeFolder: @escaping @Sendable () -> Void,
         onWait: @escaping @Sendable (_ outcome: String, _ seconds: Double) -> Void,
         watch: IdleConnectionWatch = IdleConnectionWatch(logger: nil)) {
        self.watch = watch
        state = Mutex(State(requests: FoldRequests(restNanoseconds: UInt64(max(0, restSeconds) * 1e9))))
        self.maxWaitSeconds = maxWaitSeconds
        self.wakeFolder = wakeFolder
        self.onWait = onWait
    }

    /// The fold of one unit of work (a request, a monitor scan), its ticket taken now: every batch
    /// acknowledged before this call is counted by the readers given it.
    public func readFold() -> any ReadFold {
        SharedReadFold(folds: self, ticket: state.withLock { $0.requests.ticket() })
    }

    /// Readers waiting for a fold now.
    public var waitingReaders: Int { state.withLock { $0.waiters.count } }

    /// Blocks until a fold that started after `ticket` has committed (nil), or says why the
    /// reader must fold itself.
    func wait(for ticket: FoldRequests.Ticket) -> FoldRequests.Fallback? {
        let started = monotonicNanoseconds()
        let deadline = started + UInt64(max(0, maxWaitSeconds) * 1e9)
        let semaphore = DispatchSemaphore(value: 0)
        var waiter: UInt64?
        defer { if let waiter { state.withLock { _ = $0.waiters.removeValue(forKey: waiter) } } }
        var outcome: FoldRequests.Fallback?
        waiting: while true {
            let answer = state.withLock { (s) -> FoldRequests.Answer in
                let answer = s.requests.answer(ticket)
                if case .wait = answer, waiter == nil {
                    s.nextWaiter += 1
                    s.waiters[s.nextWaiter] = semaphore
                    waiter = s.nextWaiter
                }
                return answer
            }
            switch answer {
            case .folded:
                outcome = nil
                break waiting
            case .foldYourself(let why):
                outcome = why
                break waiting
            case .wait(let wake):
                if wake { wakeFolder() }
                let now = monotonicNanoseconds()
                if now >= deadline || semaphore.wait(timeout: .now() + .nanoseconds(Int(deadline - now))) == .timedOut {
                    // One last look: the fold may have committed as the wait ended.
                    let last = state.withLock { $0.requests.answer(ticket) }
                    outcome = last == .folded ? nil : FoldRequests.Fallback.timedOut
                    break waiting
                }
            }
        }
        onWait(outcome?.rawValue ?? "shared", secondsSince(started))
        return outcome
    }

    // MARK: The folder's side

    /// When a reader waits for a fold not started yet: when the folder starts it (monotonic
    /// nanoseconds: the previous fold's end plus the rest). Nil: no reader wants one.
    var wantedFoldStartsAt: UInt64? { state.withLock { $0.requests.wantedFoldStartsAt } }

    func foldStarting() { state.withLock { _ = $0.requests.foldStarting() } }

    /// The fold committed or failed: every waiting reader looks at its ticket again.
    func foldFinished(succeeded: Bool) {
        let waiters = state.withLock { (s) -> [DispatchSemaphore] in
            s.requests.foldFinished(succeeded: succeeded, at: monotonicNanoseconds())
            return Array(s.waiters.values)
        }
        waiters.forEach { $0.signal() }
    }

    /// The folder has made its last fold: readers still waiting, and later ones, fold themselves.
    func stop() {
        let waiters = state.withLock { (s) -> [DispatchSemaphore] in
            s.requests.stop()
            return Array(s.waiters.values)
        }
        waiters.forEach { $0.signal() }
    }
}
