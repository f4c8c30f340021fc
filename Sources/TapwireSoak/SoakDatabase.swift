import Foundation
import TapwireStore
#if canImport(Glibc)
import Glibc
#endif

/// The soak's private PostgreSQL (durable, as in production), and the ways the soak reaches it.
struct SoakDatabase: Sendable {
    let postgres: EmbeddedPostgres
    /// The `soak` database the collector writes to.
    let url: String

    /// Starts a new cluster under `work` with a `soak` database.
    static func start(in work: String) throws -> SoakDatabase {
        let postgres = try EmbeddedPostgres(dataDirectory: work + "/pg", port: EmbeddedPostgres.freePort(), durable: true)
        try postgres.start()
        try postgres.createDatabase("soak")
        return SoakDatabase(postgres: postgres, url: postgres.url(database: "soak"))
    }

    func connect() throws -> PostgresConnection { try PostgresConnection(url: url, applicationName: "tapwire-soak") }

    /// A connection for a fault, retried: a loaded machine can take longer than one connect timeout
    /// to fork a backend.
    func connectForFault(attempts: Int = 4) -> PostgresConnection? {
        for attempt in 1...attempts {
            if let connection = try? connect() { return connection }
            if attempt < attempts { Thread.sleep(forTimeInterval: 0.5) }
        }
        return nil
    }

    /// The process ids of the collector's writer backends.
    func writerBackends() -> [Int32] {
        guard let c = try? connect() else { return [] }
        defer { c.close() }
        return (try? c.query("SELECT pid FROM pg_stat_activity WHERE application_name = 'tapwire-writer'").rows.compactMap { $0[0].flatMap { Int32($0) } }) ?? []
    }

    /// pg_ctl as the postgres user when we are root (the server refuses to run as root).
    func pgctl(_ arguments: [String]) -> Bool {
        let command = postgres.binDirectory + "/pg_ctl"
        let result = geteuid() == 0
            ? try? Subprocess.run("/sbin/runuser", ["-u", "postgres", "--", command] + arguments, captureOutput: false)
            : try? Subprocess.run(command, arguments, captureOutput: false)
        return result?.status == 0
    }
}
