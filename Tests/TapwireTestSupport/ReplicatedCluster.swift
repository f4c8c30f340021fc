import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif
import TapwireStore

/// A primary and a real streaming hot standby made from it with `pg_basebackup -R`, each its own
/// cluster on a free loopback port in a directory of this object's own, which `stop` removes.
/// With `synchronous`, the primary waits for the standby to write every commit's WAL
/// (`synchronous_standby_names = '*'`, `synchronous_commit = on`): the deployment
/// docs/high-availability.md describes.
public final class ReplicatedCluster: Sendable {
    public let primary: EmbeddedPostgres
    public let standby: EmbeddedPostgres
    public let directory: String
    private let stopped = Mutex(false)
    /// Stops both servers if this process ends without `stop()` (killed, crashed).
    private let serverGuard: ServerGuard

    private init(primary: EmbeddedPostgres, standby: EmbeddedPostgres, directory: String, serverGuard: ServerGuard) {
        self.primary = primary
        self.standby = standby
        self.directory = directory
        self.serverGuard = serverGuard
    }

    public static func start(synchronous: Bool = false) throws -> ReplicatedCluster {
        let directory = "/tmp/tapwire-replicated-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        let root = geteuid() == 0
        if root { _ = try Subprocess.run("/bin/chown", ["postgres:postgres", directory]) }
        // Durable when synchronous: the fast settings include synchronous_commit = off, which
        // would acknowledge commits before the standby has them.
        let primary = try EmbeddedPostgres(dataDirectory: directory + "/primary", port: EmbeddedPostgres.freePort(), durable: synchronous)
        let standby = try EmbeddedPostgres(dataDirectory: directory + "/standby", port: EmbeddedPostgres.freePort(), durable: synchronous)
        let serverGuard = try ServerGuard.start(directory: directory, dataDirectories: [primary.dataDirectory, standby.dataDirectory],
                                                binDirectory: primary.binDirectory)
        let cluster = ReplicatedCluster(primary: primary, standby: standby, directory: directory, serverGuard: serverGuard)
        do {
            try primary.start()
            if synchronous {
                let admin = try PostgresConnection(url: primary.url())
                defer { admin.close() }
                try admin.query("ALTER SYSTEM SET synchronous_standby_names = '*'")
                try admin.query("SELECT pg_reload_conf()")
            }
            let command = [primary.binDirectory + "/pg_basebackup", "-h", "127.0.0.1", "-p", String(primary.port), "-U", "postgres",
                           "-D", standby.dataDirectory, "-R", "-X", "stream", "-c", "fast"]
            let backup = root ? try Subprocess.run("/sbin/runuser", ["-u", "postgres", "--"] + command)
                              : try Subprocess.run(command[0], Array(command.dropFirst()))
            guard backup.status == 0 else { throw TestClientError(message: "pg_basebackup failed (\(backup.status)): \(backup.output)") }
            if synchronous {
                // The copy carries the primary's synchronous_standby_names (postgresql.auto.conf);
                // once promoted, with no standby of its own, every commit would wait for one.
                // Patroni clears it on a promotion; here the standby never has it.
                let auto = standby.dataDirectory + "/postgresql.auto.conf"
                let kept = try String(contentsOfFile: auto, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
                    .filter { !$0.hasPrefix("synchronous_standby_names") }.joined(separator: "\n")
                try kept.write(toFile: auto, atomically: false, encoding: .utf8)
            }
            try standby.start()
            guard eventually(timeout: 30, { (try? cluster.streaming()) == true }) else {
                throw TestClientError(message: "the standby does not stream from the primary")
            }
        } catch {
            cluster.stop()
            throw error
        }
        return cluster
    }

    /// Whether the primary sees the standby streaming.
    public func streaming() throws -> Bool {
        let connection = try PostgresConnection(url: primary.url(), connectTimeoutSeconds: 2)
        defer { connection.close() }
        return try connection.query("SELECT count(*) FROM pg_stat_replication WHERE state = 'streaming'").scalar == "1"
    }

    /// Waits until the standby has replayed all the WAL the primary has inserted so far: every
    /// commit that has returned. Not `pg_current_wal_lsn()`, the WAL written out: with
    /// `synchronous_commit = off` (the fast settings) a commit returns before the WAL writer
    /// writes its record, so waiting for the written position could return before the standby
    /// has the commit (a report on the standby then missed the fold just committed).
    public func awaitReplay(timeout: Double = 30) throws -> Bool {
        let source = try PostgresConnection(url: primary.url())
        defer { source.close() }
        let written = try source.query("SELECT pg_current_wal_insert_lsn()::text").scalar ?? ""
        let replica = try PostgresConnection(url: standby.url())
        defer { replica.close() }
        return eventually(timeout: timeout) {
            (try? replica.query("SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn", [written]).scalar) == "t"
        }
    }

    /// Kills the primary the way a crash does (immediate shutdown: no checkpoint, sessions cut).
    public func killPrimary() throws { try pgctl(primary, ["-m", "immediate", "-w", "stop"]) }

    /// Promotes the standby to a primary and waits until it accepts writes.
    public func promoteStandby() throws { try pgctl(standby, ["-w", "-t", "60", "promote"]) }

    private func pgctl(_ server: EmbeddedPostgres, _ arguments: [String]) throws {
        let command = [server.binDirectory + "/pg_ctl", "-D", server.dataDirectory] + arguments
        let result = geteuid() == 0 ? try Subprocess.run("/sbin/runuser", ["-u", "postgres", "--"] + command)
                                    : try Subprocess.run(command[0], Array(command.dropFirst()))
        guard result.status == 0 else { throw TestClientError(message: "pg_ctl \(arguments.last ?? "") failed: \(result.output)") }
    }

    /// A URL naming both servers, primary first, that connects to whichever accepts writes.
    public func multiHostURL(database: String) -> String {
        "postgresql://postgres@127.0.0.1:\(primary.port),127.0.0.1:\(standby.port)/\(database)?target_session_attrs=read-write&sslmode=disable"
    }

    /// Stops both servers at once (immediate shutdown) and removes their directory. Once.
    public func stop() {
        guard !stopped.withLock({ let was = $0; $0 = true; return was }) else { return }
        for server in [standby, primary] where server.isInitialized {
            let command = [server.binDirectory + "/pg_ctl", "-D", server.dataDirectory, "-m", "immediate", "-w", "stop"]
            _ = geteuid() == 0 ? try? Subprocess.run("/sbin/runuser", ["-u", "postgres", "--"] + command)
                               : try? Subprocess.run(command[0], Array(command.dropFirst()))
        }
        try? FileManager.default.removeItem(atPath: directory)
        serverGuard.release()
    }

    deinit { stop() }
}
