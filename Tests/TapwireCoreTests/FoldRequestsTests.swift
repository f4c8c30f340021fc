import Testing
@testable import TapwireCore

/// The folds a collector's readers wait for (`FoldRequests`): a ticket is served by the first fold
/// that starts after it, one wake-up per fold, every waiting reader by one fold, and a folder that
/// cannot serve tells the reader to fold itself rather than leave it waiting.
@Suite struct FoldRequestsTests {
    @Test func aTicketTakenWhileTheFolderSleepsWakesItOnceAndOneFoldServesEveryReader() {
        var folds = FoldRequests()
        folds.foldStarting()
        folds.foldFinished(succeeded: true) // the first fold, at start
        let first = folds.ticket(), second = folds.ticket()
        #expect(first == FoldRequests.Ticket(fold: 2) && second == first)
        #expect(!folds.foldWanted)
        #expect(folds.answer(first) == .wait(wakeFolder: true))
        #expect(folds.answer(second) == .wait(wakeFolder: false), "the folder is woken once")
        #expect(folds.answer(first) == .wait(wakeFolder: false))
        #expect(folds.foldWanted)
        #expect(folds.foldStarting() == 2)
        #expect(!folds.foldWanted, "the fold that started serves the readers waiting")
        #expect(folds.answer(first) == .wait(wakeFolder: false) && folds.answer(second) == .wait(wakeFolder: false))
        #expect(!folds.foldWanted)
        folds.foldFinished(succeeded: true)
        #expect(folds.answer(first) == .folded && folds.answer(second) == .folded)
        #expect(!folds.foldWanted, "served: the folder keeps its interval")
        // Served for good: later folds do not undo it.
        folds.foldStarting()
        folds.foldFinished(succeeded: false)
        #expect(folds.answer(first) == .folded)
    }

    @Test func aTicketTakenWhileAFoldRunsWaitsForTheNextOneNotThatOne() {
        var folds = FoldRequests()
        #expect(folds.foldStarting() == 1)
        // The running fold may have read the pending batches before this reader's were acknowledged.
        let ticket = folds.ticket()
        #expect(ticket.fold == 2)
        #expect(folds.answer(ticket) == .wait(wakeFolder: false), "a running folder needs no wake-up: it looks when it finishes")
        #expect(folds.foldWanted)
        folds.foldFinished(succeeded: true)
        #expect(folds.answer(ticket) == .wait(wakeFolder: false))
        #expect(folds.foldWanted, "the next fold starts at once")
        folds.foldStarting()
        folds.foldFinished(succeeded: true)
        #expect(folds.answer(ticket) == .folded)
    }

    @Test func aTicketTakenBeforeItsFoldStartsIsServedByItEvenIfNoReaderAskedYet() {
        var folds = FoldRequests()
        let ticket = folds.ticket()
        // The folder's interval ran out before the reader looked.
        folds.foldStarting()
        #expect(folds.answer(ticket) == .wait(wakeFolder: false))
        #expect(!folds.foldWanted)
        folds.foldFinished(succeeded: true)
        #expect(folds.answer(ticket) == .folded)
    }

    @Test func aFailedFoldSendsItsReadersToFoldThemselvesAndSoDoesAFolderBackingOff() {
        var folds = FoldRequests()
        let waiting = folds.ticket()
        #expect(folds.answer(waiting) == .wait(wakeFolder: true))
        folds.foldStarting()
        folds.foldFinished(succeeded: false)
        #expect(folds.answer(waiting) == .foldYourself(.foldFailed))
        // While the folder backs off, a new reader does not wait for it (nor wake it).
        let next = folds.ticket()
        #expect(folds.answer(next) == .foldYourself(.foldFailed))
        #expect(!folds.foldWanted)
        // Once it folds again, readers wait for it again.
        folds.foldStarting()
        #expect(folds.answer(next) == .wait(wakeFolder: false))
        folds.foldFinished(succeeded: true)
        #expect(folds.answer(next) == .folded)
        let after = folds.ticket()
        #expect(folds.answer(after) == .wait(wakeFolder: true))
    }

    @Test func aStoppedFolderServesTheFoldRunningAndSendsLaterReadersToFoldThemselves() {
        var folds = FoldRequests()
        let ticket = folds.ticket()
        folds.foldStarting() // the last fold, as the collector drains
        folds.stop()
        #expect(folds.answer(ticket) == .wait(wakeFolder: false))
        folds.foldFinished(succeeded: true)
        #expect(folds.answer(ticket) == .folded)
        let late = folds.ticket()
        #expect(folds.answer(late) == .foldYourself(.stopped))
        #expect(!folds.foldWanted)
    }

    @Test func finishingWithoutAFoldRunningChangesNothing() {
        var folds = FoldRequests()
        folds.foldStarting()
        folds.foldFinished(succeeded: true)
        let before = folds
        folds.foldFinished(succeeded: false)
        #expect(folds == before)
    }
}
