import Synchronization
import TapwireCore

/// One unit of work's fold in the collector: the first reader waits, the others find it done.
/// A reader the folder cannot serve folds itself (`OwnFold`), once for the unit.
final class SharedReadFold: ReadFold {
    let folds: SharedFolds
    let ticket: FoldRequests.Ticket
    private let done = Atomic<Bool>(false)

    init(folds: SharedFolds, ticket: FoldRequests.Ticket) {
        self.folds = folds
        self.ticket = ticket
    }

    func foldBeforeReading(on connection: PostgresConnection) throws(DatabaseError) {
        if done.load(ordering: .acquiring) { return }
        let fallback = folds.wait(for: ticket)
        // The wait (up to `maxWaitSeconds`) left the reader's connection idle: one the server
        // closed meanwhile (idle_session_timeout, a pooler's, a restart) is replaced in place
        // before the reads would fail on it.
        try folds.watch.reconnectIfClosed(connection, name: "reader-after-fold-wait")
        if fallback != nil {
            try OwnFold().foldBeforeReading(on: connection)
        }
        done.store(true, ordering: .releasing)
    }
}
