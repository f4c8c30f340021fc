import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif
import TapwireStore

/// A real PgBouncer (Debian's package, `scripts/install-deps.sh pgbouncer`) in front of a
/// PostgreSQL server, in transaction pooling with the stock settings otherwise: what teams put
/// between their apps and the database. Every database name is passed through. It runs as the
/// `postgres` user when the tests run as root (PgBouncer refuses root), as a daemon whose pid
/// this object keeps and alone stops.
public final class PgBouncer: Sendable {
    public let port: Int
    public let directory: String
    public let pid: Int32
    private let stopped = Mutex(false)

    public static let binary = "/usr/sbin/pgbouncer"

    private init(port: Int, directory: String, pid: Int32) {
        self.port = port
        self.directory = directory
        self.pid = pid
    }

    /// Starts one in front of the server at `host:serverPort`; waits until it accepts connections.
    public static func start(serverHost: String = "127.0.0.1", serverPort: Int) throws -> PgBouncer {
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            throw TestClientError(message: "PgBouncer is not installed: run `scripts/install-deps.sh pgbouncer` (make test does)")
        }
        let directory = "/tmp/tapwire-pgbouncer-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        let port = EmbeddedPostgres.freePort()
        // Only what a deployment must say: where the server is, where to listen, who may connect,
        // and transaction pooling. Everything else is PgBouncer's default.
        let configuration = """
            [databases]
            * = host=\(serverHost) port=\(serverPort)

            [pgbouncer]
            listen_addr = 127.0.0.1
            listen_port = \(port)
            unix_socket_dir =
            auth_type = trust
            auth_file = \(directory)/userlist.txt
            pool_mode = transaction
            logfile = \(directory)/pgbouncer.log
            pidfile = \(directory)/pgbouncer.pid

            """
        try configuration.write(toFile: directory + "/pgbouncer.ini", atomically: true, encoding: .utf8)
        try "\"postgres\" \"\"\n".write(toFile: directory + "/userlist.txt", atomically: true, encoding: .utf8)
        let root = geteuid() == 0
        if root { _ = try Subprocess.run("/bin/chown", ["-R", "postgres:postgres", directory]) }
        let command = [binary, "-d", directory + "/pgbouncer.ini"]
        let started = root ? try Subprocess.run("/sbin/runuser", ["-u", "postgres", "--"] + command)
                           : try Subprocess.run(command[0], Array(command.dropFirst()))
        guard started.status == 0 else {
            throw TestClientError(message: "pgbouncer did not start (\(started.status)): \(started.output) \(Self.log(directory))")
        }
        var pid: Int32 = 0
        let up = eventually(timeout: 10) {
            pid = (try? String(contentsOfFile: directory + "/pgbouncer.pid", encoding: .utf8))
                .flatMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) } ?? 0
            return pid > 0 && (try? PostgresConnection(url: "postgresql://postgres@127.0.0.1:\(port)/postgres?sslmode=disable",
                                                        connectTimeoutSeconds: 2)) != nil
        }
        let bouncer = PgBouncer(port: port, directory: directory, pid: pid)
        guard up else {
            bouncer.stop()
            throw TestClientError(message: "pgbouncer did not accept connections: \(Self.log(directory))")
        }
        return bouncer
    }

    /// A URL to `database` through PgBouncer.
    public func url(database: String) -> String {
        "postgresql://postgres@127.0.0.1:\(port)/\(database)?sslmode=disable"
    }

    /// What PgBouncer logged: a refused connection names its reason here.
    public var log: String { Self.log(directory) }

    private static func log(_ directory: String) -> String {
        (try? String(contentsOfFile: directory + "/pgbouncer.log", encoding: .utf8)) ?? ""
    }

    /// Immediate shutdown (SIGTERM) of this PgBouncer, then its directory is removed. Once: the
    /// pid is not signalled again after the process is gone (it could be another's by then).
    public func stop() {
        guard !stopped.withLock({ let was = $0; $0 = true; return was }) else { return }
        if pid > 0 {
            kill(pid, SIGTERM)
            if !eventually(timeout: 10, { kill(pid, 0) != 0 }) { kill(pid, SIGKILL) }
        }
        try? FileManager.default.removeItem(atPath: directory)
    }

    deinit { stop() }
}
