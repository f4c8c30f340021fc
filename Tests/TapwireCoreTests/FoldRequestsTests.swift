import Testing
@testable import TapwireCore

/// The folds a collector's readers wait for (`FoldRequests`): a ticket is served by the first fold
/// that starts after it, one wake-up per fold, every waiting reader by one fold, and a folder that
/// cannot serve tells the reader to fold itself rather than leave it waiting; a fold a reader wants
/// starts no sooner than the rest after the previous one's end.
@Suite struct FoldRequestsTests {
    @Test func aTicketTakenWhileTheFolderSleepsWakesItOnceAndOneFoldServesEveryReader() {
        var folds = FoldRequests()
        folds.foldStarting()
        folds.foldFinished(succeeded: true, at: 0) // the first fold, at start
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
        folds.foldFinished(succeeded: true, at: 0)
        #expect(folds.answer(first) == .folded && folds.answer(second) == .folded)
        #expect(!folds.foldWanted, "served: the folder keeps its interval")
        // Served for good: later folds do not undo it.
        folds.foldStarting()
        folds.foldFinished(succeeded: false, at: 0)
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
        folds.foldFinished(succeeded: true, at: 0)
        #expect(folds.answer(ticket) == .wait(wakeFolder: false))
        #expect(folds.foldWanted, "the next fold starts at once")
        folds.foldStarting()
        folds.foldFinished(succeeded: true, at: 0)
        #expect(folds.answer(ticket) == .folded)
    }

    @Test func aTicketTakenBeforeItsFoldStartsIsServedByItEvenIfNoReaderAskedYet() {
        var folds = FoldRequests()
        let ticket = folds.ticket()
        // The folder's interval ran out before the reader looked.
        folds.foldStarting()
        #expect(folds.answer(ticket) == .wait(wakeFolder: false))
        #expect(!folds.foldWanted)
        folds.foldFinished(succeeded: true, at: 0)
        #expect(folds.answer(ticket) == .folded)
    }

    @Test func aFailedFoldSendsItsReadersToFoldThemselvesAndSoDoesAFolderBackingOff() {
        var folds = FoldRequests()
        let waiting = folds.ticket()
        #expect(folds.answer(waiting) == .wait(wakeFolder: true))
        folds.foldStarting()
        folds.foldFinished(succeeded: false, at: 0)
        #expect(folds.answer(waiting) == .foldYourself(.foldFailed))
        // While the folder backs off, a new reader does not wait for it (nor wake it).
        let next = folds.ticket()
        #expect(folds.answer(next) == .foldYourself(.foldFailed))
        #expect(!folds.foldWanted)
        // Once it folds again, readers wait for it again.
        folds.foldStarting()
        #expect(folds.answer(next) == .wait(wakeFolder: false))
        folds.foldFinished(succeeded: true, at: 0)
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
        folds.foldFinished(succeeded: true, at: 0)
        #expect(folds.answer(ticket) == .folded)
        let late = folds.ticket()
        #expect(folds.answer(late) == .foldYourself(.stopped))
        #expect(!folds.foldWanted)
    }

    @Test func finishingWithoutAFoldRunningChangesNothing() {
        var folds = FoldRequests()
        folds.foldStarting()
        folds.foldFinished(succeeded: true, at: 0)
        let before = folds
        folds.foldFinished(succeeded: false, at: 0)
        #expect(folds == before)
    }

    @Test func aWantedFoldStartsTheRestAfterThePreviousFoldsEndAndServesEveryReaderOfTheRest() {
        let ms: UInt64 = 1_000_000
        var folds = FoldRequests(restNanoseconds: 500 * ms)
        let first = folds.ticket()
        #expect(folds.answer(first) == .wait(wakeFolder: true))
        #expect(folds.wantedFoldStartsAt == 0, "before any fold has finished, at once")
        folds.foldStarting()
        #expect(folds.wantedFoldStartsAt == nil, "the fold that started serves it")
        folds.foldFinished(succeeded: true, at: 1_000 * ms)
        #expect(folds.lastFinishedAt == 1_000 * ms)
        #expect(folds.answer(first) == .folded)
        #expect(folds.wantedFoldStartsAt == nil, "no reader waits: the folder keeps its interval")
        // Readers back to back during the rest: one wake-up, one fold at the rest's end serves all.
        let tickets = (0..<5).map { _ in folds.ticket() }
        #expect(Set(tickets).count == 1 && tickets[0].fold == 2)
        #expect(folds.answer(tickets[0]) == .wait(wakeFolder: true))
        #expect(tickets.dropFirst().allSatisfy { folds.answer($0) == .wait(wakeFolder: false) })
        #expect(folds.wantedFoldStartsAt == 1_500 * ms)
        #expect(folds.foldStarting() == 2)
        folds.foldFinished(succeeded: true, at: 1_700 * ms)
        #expect(tickets.allSatisfy { folds.answer($0) == .folded })
        // A ticket taken while a fold runs still waits for the next fold, the rest after its end.
        folds.foldStarting()
        let during = folds.ticket()
        #expect(folds.answer(during) == .wait(wakeFolder: false))
        #expect(folds.wantedFoldStartsAt == nil, "wanted, but not before the running fold has finished")
        folds.foldFinished(succeeded: true, at: 2_600 * ms)
        #expect(folds.answer(during) == .wait(wakeFolder: false))
        #expect(folds.wantedFoldStartsAt == 3_100 * ms)
    }

    @Test func withoutARestAWantedFoldStartsAsSoonAsThePreviousOneEnds() {
        var folds = FoldRequests()
        folds.foldStarting()
        folds.foldFinished(succeeded: true, at: 7)
        let ticket = folds.ticket()
        #expect(folds.answer(ticket) == .wait(wakeFolder: true))
        #expect(folds.wantedFoldStartsAt == 7)
        folds.stop()
        #expect(folds.wantedFoldStartsAt == nil, "a stopped folder starts no fold for readers")
    }
}
