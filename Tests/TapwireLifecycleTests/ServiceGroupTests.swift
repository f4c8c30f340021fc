import Dispatch
import Foundation
import Synchronization
import Testing
import TapwireCore
import TapwireLifecycle

/// One lifecycle: a group starts its services in order, each once the one before is ready, and
/// drains them in reverse, each finished before the next is asked; a service that cannot start
/// stops the ones started. The loops they run on wake at once for work and for a shutdown.
@Suite struct ServiceGroupTests {
    /// What a test's services did, in order.
    final class Journal: Sendable {
        private let lines = Mutex<[String]>([])
        func append(_ line: String) { lines.withLock { $0.append(line) } }
        var all: [String] { lines.withLock { $0 } }
    }

    /// Records what happens to it in a journal shared by a test's services.
    final class Recorder: Service {
        let name: String
        let journal: Journal
        let failsToStart: Bool
        /// How long its drain takes (it holds its `run` that long after the shutdown).
        let drainSeconds: Double
        private let stopping = ShutdownSignal()

        init(_ name: String, journal: Journal, failsToStart: Bool = false, drainSeconds: Double = 0) {
            self.name = name
            self.journal = journal
            self.failsToStart = failsToStart
            self.drainSeconds = drainSeconds
        }

        struct Refused: Error {}

        func run(ready: @escaping @Sendable () -> Void) throws {
            journal.append("start \(name)")
            if failsToStart { throw Refused() }
            ready()
            stopping.wait()
            if drainSeconds > 0 { Thread.sleep(forTimeInterval: drainSeconds) }
            journal.append("drained \(name)")
        }

        func shutdown() {
            journal.append("shutdown \(name)")
            stopping.raise()
        }
    }

    static let logger = Logger(label: "test", sink: .memory())

    @Test func startsInOrderAndDrainsInReverseEachBeforeTheNext() throws {
        let journal = Journal()
        // The first drains slowly: the group still waits for it before it returns, and the others
        // were drained before it was asked.
        let group = ServiceGroup([Recorder("readers", journal: journal, drainSeconds: 0.2), Recorder("writers", journal: journal),
                                  Recorder("http", journal: journal)], logger: Self.logger)
        try group.start()
        #expect(journal.all == ["start readers", "start writers", "start http"])
        group.shutdown()
        #expect(journal.all == ["start readers", "start writers", "start http",
                                           "shutdown http", "drained http", "shutdown writers", "drained writers",
                                           "shutdown readers", "drained readers"])
        group.shutdown()
        #expect(journal.all.count == 9, "a second shutdown does nothing")
    }

    @Test func aServiceThatCannotStartStopsTheOnesStarted() {
        let journal = Journal()
        let group = ServiceGroup([Recorder("readers", journal: journal), Recorder("writers", journal: journal),
                                  Recorder("http", journal: journal, failsToStart: true), Recorder("never", journal: journal)],
                                 logger: Self.logger)
        #expect(throws: Recorder.Refused.self) { try group.start() }
        #expect(journal.all == ["start readers", "start writers", "start http",
                                           "shutdown writers", "drained writers", "shutdown readers", "drained readers"])
    }

    @Test func aLoopWakesForWorkAndForItsStop() {
        let loop = BackgroundLoop(name: "test-loop")
        let woken = Atomic<Int>(0)
        let paused = DispatchSemaphore(value: 0)
        loop.start(threads: 2) { _ in
            while loop.isRunning {
                paused.signal()
                if loop.pause(seconds: 60) { woken.add(1, ordering: .relaxed) }
            }
        }
        paused.wait()
        paused.wait()
        let started = DispatchTime.now()
        loop.wake()
        #expect(paused.wait(timeout: .now() + 10) == .success, "a woken thread pauses again")
        #expect(woken.load(ordering: .relaxed) == 1)
        loop.stop()
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9
        #expect(seconds < 30, "stop ended two pauses of 60 s at once (took \(seconds) s)")
        #expect(!loop.isRunning)
    }

    /// Every job added while the loop runs is taken, also across its stop; none is added after.
    @Test func aWorkQueueLosesNoJobAcrossAStop() {
        let loop = BackgroundLoop(name: "test-queue")
        let queue = WorkQueue<Int>(loop: loop, limit: 1_000)
        #expect(!queue.add(0), "refused before the loop runs")
        let taken = Mutex<[Int]>([])
        loop.start(threads: 3) { _ in
            while let job = queue.next() { taken.withLock { $0.append(job) } }
        }
        var added: [Int] = []
        for job in 1...500 where queue.add(job) { added.append(job) }
        loop.stop()
        #expect(!queue.add(501), "refused after the stop")
        #expect(added.count == 500)
        #expect(taken.withLock { $0.sorted() } == added)
        let full = WorkQueue<Int>(loop: BackgroundLoop(name: "unused"), limit: 0)
        #expect(!full.add(1))
    }

    @Test func aShutdownSignalIsRaisedOnceAndLetsEveryWaiterThrough() {
        let signal = ShutdownSignal()
        #expect(!signal.isRaised)
        let through = DispatchGroup()
        for _ in 0..<3 {
            through.enter()
            Thread {
                signal.wait()
                through.leave()
            }.start()
        }
        signal.raise()
        signal.raise()
        #expect(through.wait(timeout: .now() + 10) == .success)
        #expect(signal.isRaised)
        signal.wait()
    }
}
