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
        if folds.wait(for: ticket) != nil {
            try OwnFold().foldBeforeReading(on: connection)
        }
        done.store(true, ordering: .releasing)
    }
}
