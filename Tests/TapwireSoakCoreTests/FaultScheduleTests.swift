import Testing
@testable import TapwireSoakCore

@Suite struct FaultScheduleTests {
    /// `make soak-short`: 60 s, 2 clients, 2 client kills.
    @Test func theShortSoakSchedule() {
        let schedule = FaultSchedule(seconds: 60, clients: 2, clientKills: 2)
        let expected: [(Double, FaultSchedule.Kind)] = [
            (6, .slowDatabase(window: 4.8)),
            (13.2, .postgresCrash(down: 3)),
            (18, .clientKill(number: 1, of: 2, client: 0)),
            (22.8, .collectorKill(down: 2)),
            (30, .writerBackendsPaused(pause: 3)),
            (33, .clientKill(number: 2, of: 2, client: 1)),
            (36, .queueFilledToCap(events: 40000, seed: 900_000_000)),
        ]
        #expect(schedule.faults.count == expected.count)
        for (fault, (at, kind)) in zip(schedule.faults, expected) {
            #expect(abs(fault.at - at) < 1e-9, "\(fault.name) at \(fault.at)")
            #expect(fault.kind == kind)
        }
    }

    @Test func theLongSoakScalesDurationsAndSpreadsKillsOverClients() {
        let schedule = FaultSchedule(seconds: 300, clients: 2, clientKills: 3)
        #expect(schedule.faults.first?.kind == .slowDatabase(window: 24))
        #expect(schedule.faults.contains { $0.kind == .postgresCrash(down: 12) && $0.at == 0.22 * 300 })
        #expect(schedule.faults.contains { $0.kind == .writerBackendsPaused(pause: 9) })
        let kills = schedule.faults.compactMap { fault -> (Double, Int)? in
            if case .clientKill(_, _, let client) = fault.kind { return (fault.at, client) } else { return nil }
        }
        #expect(kills.map(\.1) == [0, 1, 0], "the clients in turn")
        #expect(zip(kills.map(\.0), [90.0, 140, 190]).allSatisfy { abs($0 - $1) < 1e-9 }, "from 30% of the run, every 50% / kills")
    }

    @Test func firesInTimeOrder() {
        for kills in [0, 1, 2, 3, 7] {
            let times = FaultSchedule(seconds: 120, clients: 4, clientKills: kills).faults.map(\.at)
            #expect(times == times.sorted())
            #expect(times.count == 5 + kills)
        }
    }

    @Test func namesAreThePrintedLines() {
        let names = FaultSchedule(seconds: 60, clients: 1, clientKills: 1).faults.map(\.name)
        #expect(names == [
            "slow database (pg_sleep(0.25) before every id claim)",
            "PostgreSQL stopped (immediate, as in a crash) and restarted",
            "client killed with kill -9 (1 of 1)",
            "collector killed with kill -9 and restarted",
            "writer backends paused (SIGSTOP) and resumed",
            "SDK queue filled to its cap (a client recording offline)",
        ])
    }
}
