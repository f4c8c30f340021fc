import Foundation
import Synchronization
import TapwireSoakCore
import TapwireStore
#if canImport(Glibc)
import Glibc
#endif

/// One client: a queue directory and an id log, recorded into by successive harness processes
/// (each records a round of events and flushes as it goes), paced to its share of the rate.
final class ClientSlot: Sendable {
    let index: Int
    let queue: String
    let log: String
    let rate: Double
    private let harness: HarnessCommand
    private let current = Mutex<Subprocess.Child?>(nil)
    let rounds = Atomic<Int>(0)
    let killed = Atomic<Int>(0)
    let rejected = Atomic<Int>(0)
    let failures = Atomic<Int>(0)

    init(index: Int, rate: Double, work: String, harness: HarnessCommand) {
        self.index = index
        self.rate = rate
        self.harness = harness
        queue = work + "/client-\(index)"
        log = work + "/client-\(index).ids"
    }

    /// Runs the harness once; nil if it could not start.
    func runHarness(_ arguments: [String], output: String) -> (status: Int32, report: HarnessReport?)? {
        try? FileManager.default.removeItem(atPath: output)
        guard let child = try? Subprocess.spawn(harness.executable, ["--queue", queue, "--endpoint", harness.endpoint, "--key", harness.writeKey,
                                                                     "--log", log, "--durability", "buffered", "--batch", "500"] + arguments,
                                                logPath: output)
        else { return nil }
        current.withLock { $0 = child }
        let status = child.wait(timeout: 600) ?? -1
        current.withLock { $0 = nil }
        let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        return (status, HarnessReport(output: text))
    }

    func loop(until deadline: Date) {
        let roundEvents = max(200, Int(rate * 2))
        var seed = index * 100_000_000
        let begun = Date()
        var recorded = 0
        while Date() < deadline {
            guard let (status, report) = runHarness(["--record", String(roundEvents), "--flush-every", "500", "--seed", String(seed)],
                                                    output: queue + ".out") else {
                failures.add(1, ordering: .relaxed)
                Thread.sleep(forTimeInterval: 0.5)
                continue
            }
            rounds.add(1, ordering: .relaxed)
            seed += roundEvents
            recorded += roundEvents
            if status != 0, status != 128 + SIGKILL { failures.add(1, ordering: .relaxed) }
            if let report { rejected.add(report.rejected, ordering: .relaxed) }
            // Pace: this slot's events so far should have taken recorded / rate seconds.
            let due = begun.addingTimeInterval(Double(recorded) / rate)
            if due > Date(), due < deadline { Thread.sleep(until: due) }
        }
    }

    /// kill -9 of the harness process running now, if any.
    func killCurrent() -> Bool {
        guard let child = current.withLock({ $0 }) else { return false }
        child.signal(SIGKILL)
        killed.add(1, ordering: .relaxed)
        return true
    }

    /// The ids in its log (a killed process can leave a partial last line, which is skipped).
    func loggedIds() -> [String] {
        ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init).filter { $0.count == 36 }
    }
}
