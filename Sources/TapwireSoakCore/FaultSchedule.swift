// Which fault the soak injects when, as a pure value: the driver (tapwire-soak's FaultInjector)
// puts each in place; this file decides only the times, the durations and the names it prints.

/// The faults of one soak run, in the order they fire. Times are seconds after recording starts.
public struct FaultSchedule: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// A trigger makes every dedup claim sleep (pg_sleep(0.25)) for `window` seconds.
        case slowDatabase(window: Double)
        /// `pg_ctl stop -m immediate` (as in a crash), `down` seconds, then start.
        case postgresCrash(down: Double)
        /// The collector is kill -9'd and restarted on the same port after `down` seconds.
        case collectorKill(down: Double)
        /// The collector's writer backends are SIGSTOPped for `pause` seconds.
        case writerBackendsPaused(pause: Double)
        /// One queue gets `events` recorded without flushing, far past its cap (the capped client).
        case queueFilledToCap(events: Int, seed: Int)
        /// The running harness of client `client` is kill -9'd: kill `number` of `of`.
        case clientKill(number: Int, of: Int, client: Int)

        /// The line the soak prints when the fault fires.
        public var name: String {
            switch self {
            case .slowDatabase: "slow database (pg_sleep(0.25) before every id claim)"
            case .postgresCrash: "PostgreSQL stopped (immediate, as in a crash) and restarted"
            case .collectorKill: "collector killed with kill -9 and restarted"
            case .writerBackendsPaused: "writer backends paused (SIGSTOP) and resumed"
            case .queueFilledToCap: "SDK queue filled to its cap (a client recording offline)"
            case .clientKill(let number, let of, _): "client killed with kill -9 (\(number) of \(of))"
            }
        }
    }

    public struct Fault: Sendable, Equatable {
        public var at: Double
        public var kind: Kind
        public var name: String { kind.name }
        public init(at: Double, kind: Kind) {
            self.at = at
            self.kind = kind
        }
    }

    public let faults: [Fault]

    /// The schedule of a run of `seconds` with `clients` recording clients and `clientKills` client
    /// kills: the fixed faults at set fractions of the run, the client kills spread from 30% to 80%
    /// over the clients in turn.
    public init(seconds T: Double, clients: Int, clientKills: Int) {
        var faults = [
            Fault(at: 0.10 * T, kind: .slowDatabase(window: max(3, 0.08 * T))),
            Fault(at: 0.22 * T, kind: .postgresCrash(down: max(3, 0.04 * T))),
            Fault(at: 0.38 * T, kind: .collectorKill(down: 2)),
            Fault(at: 0.50 * T, kind: .writerBackendsPaused(pause: max(3, 0.03 * T))),
            // 40,000 events recorded without flushing: far more than the 8 MiB queue holds.
            Fault(at: 0.60 * T, kind: .queueFilledToCap(events: 40000, seed: 900_000_000)),
        ]
        let killTimes = (0..<clientKills).map { 0.3 * T + Double($0) * 0.5 * T / Double(max(1, clientKills)) }
        for (i, at) in killTimes.enumerated() {
            faults.append(Fault(at: at, kind: .clientKill(number: i + 1, of: clientKills, client: i % clients)))
        }
        // The same list in the same order with the same sort as always, so ties fire as they did.
        faults.sort { $0.at < $1.at }
        self.faults = faults
    }
}
