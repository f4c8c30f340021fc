import Foundation
import TapwireSoakCore
import TapwireStore
#if canImport(Glibc)
import Glibc
#endif

/// Puts the faults of a `FaultSchedule` in place against the running database, collector and clients.
struct FaultInjector: Sendable {
    let database: SoakDatabase
    let collector: CollectorProcess
    let slots: [ClientSlot]
    /// The client whose queue the schedule fills past its cap.
    let capped: ClientSlot

    /// What a fault did, and why it was not put in place if it was not: the run then did not test
    /// what it says, so it fails rather than passing on a shorter schedule.
    struct Outcome {
        var text: String
        var notInjected: String?
    }

    func inject(_ kind: FaultSchedule.Kind) -> Outcome {
        switch kind {
        case .slowDatabase(let window):
            guard let c = database.connectForFault() else {
                return Outcome(text: "NOT INJECTED: could not connect", notInjected: "slow database: could not connect to PostgreSQL to install it")
            }
            do { try c.executeScript(SoakSQL.slowInstall) } catch {
                return Outcome(text: "NOT INJECTED: install failed: \(error)", notInjected: "slow database: the install failed (\(error))")
            }
            Thread.sleep(forTimeInterval: window)
            _ = try? c.executeScript(SoakSQL.slowRemove)
            c.close()
            return Outcome(text: String(format: "for %.0f s", window))
        case .postgresCrash(let down):
            let stopped = database.pgctl(["-D", database.postgres.dataDirectory, "-m", "immediate", "-w", "stop"])
            Thread.sleep(forTimeInterval: down)
            do { try database.postgres.start() } catch { return Outcome(text: "restart failed: \(error)") }
            return Outcome(text: String(format: "down %.0f s%@", down, stopped ? "" : " (stop reported an error)"))
        case .collectorKill(let down):
            collector.kill9()
            Thread.sleep(forTimeInterval: down)
            collector.start()
            collector.restarts.add(1, ordering: .relaxed)
            return Outcome(text: String(format: "down %.0f s, restarted on the same port", down))
        case .writerBackendsPaused(let pause):
            let pids = database.writerBackends()
            for pid in pids { kill(pid, SIGSTOP) }
            Thread.sleep(forTimeInterval: pause)
            for pid in pids { kill(pid, SIGCONT) }
            return Outcome(text: String(format: "%d backends for %.0f s", pids.count, pause))
        case .queueFilledToCap(let events, let seed):
            // The oldest are dropped and counted; this queue is drained with the others at the end.
            let result = capped.runHarness(["--record", String(events), "--flush-every", "0", "--seed", String(seed)], output: capped.queue + ".out")
            return Outcome(text: "recorded \(events) into one queue, \(result?.report?.dropped ?? -1) dropped by the cap")
        case .clientKill(_, _, let client):
            let slot = slots[client]
            for _ in 0..<50 {
                if slot.killCurrent() { return Outcome(text: "client \(slot.index)'s harness, mid-round; its next round reopens the queue") }
                Thread.sleep(forTimeInterval: 0.1)
            }
            return Outcome(text: "no harness was running")
        }
    }

    /// Fires each fault at its time (seconds after `clock` started), printing its name and outcome.
    /// Returns the log ("name: outcome") and the faults that were not put in place.
    func run(_ schedule: FaultSchedule, clock: RecordingClock) -> (log: [String], notInjected: [String]) {
        var log: [String] = []
        var notInjected: [String] = []
        for fault in schedule.faults {
            let wait = fault.at - clock.elapsed()
            if wait > 0 { Thread.sleep(forTimeInterval: wait) }
            say("\(clock.stamp()) fault: \(fault.name)")
            let outcome = inject(fault.kind)
            if let reason = outcome.notInjected { notInjected.append(reason) }
            log.append("\(fault.name): \(outcome.text)")
            say("\(clock.stamp())        \(outcome.text)")
        }
        return (log, notInjected)
    }
}
