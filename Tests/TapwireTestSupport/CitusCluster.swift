import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif
import TapwireStore

/// A real Citus cluster on loopback: a coordinator and two workers, each its own PostgreSQL in a
/// directory of this object's, with the citus extension preloaded. Started once per test process
/// (`shared()`) and stopped at exit, or by its `ServerGuard` when the process is killed or
/// crashes; each test gets a database of its own, set up as docs/deployment.md tells an operator
/// (`database(prefix:)`), and "Testing on Citus" there says what keeps it deterministic.
///
/// Citus comes from the server's directories; when it is not there, `scripts/install-citus.sh`
/// builds it from TAPWIRE_CITUS_SOURCE (a build cached under .build/citus). Where it cannot be
/// had, `shared()` throws `Unavailable`, with the reason and the way to get it (a test is then
/// cancelled), except under CI=true, where it throws an error that fails the test.
public final class CitusCluster: Sendable {
    public let coordinator: EmbeddedPostgres
    public let workers: [EmbeddedPostgres]
    public let directory: String
    private let stopped = Mutex(false)
    /// Stops the three servers if this process ends without `stop()` (killed, crashed).
    private let serverGuard: ServerGuard

    /// Shards per distributed table: 4 per worker. Citus's default (32) makes each daily
    /// partition of events 32 shards, which only slows a test's setup down; what an operator
    /// picks is docs/deployment.md's ("Citus").
    public static let shardCount = 8

    private init(coordinator: EmbeddedPostgres, workers: [EmbeddedPostgres], directory: String, serverGuard: ServerGuard) {
        self.coordinator = coordinator
        self.workers = workers
        self.directory = directory
        self.serverGuard = serverGuard
    }

    private static let sharedCluster = Mutex<CitusCluster?>(nil)

    /// This process's cluster, started on first use (after making sure Citus is installed).
    public static func shared() throws -> CitusCluster {
        try sharedCluster.withLock { cluster in
            if let cluster { return cluster }
            try requireCitus()
            let started = try start()
            cluster = started
            atexit { CitusCluster.sharedCluster.withLock { $0 }?.stop() }
            return started
        }
    }

    /// Citus cannot be had on this machine (and CI is not set): the test should be cancelled.
    public struct Unavailable: Error, CustomStringConvertible {
        public var message: String
        public var description: String { message }
    }

    /// Makes sure the server can load Citus: installed, or installed now by
    /// scripts/install-citus.sh. Throws `Unavailable` when Citus cannot be had, or a plain
    /// error under CI=true.
    public static func requireCitus() throws {
        switch availability.withLock({ $0 }) ?? Self.install() {
        case .installed:
            return
        case .unavailable(let reason):
            let message = "Citus is not installed and cannot be built here: \(reason). Set TAPWIRE_CITUS_SOURCE to a Citus "
                + "source tarball and run scripts/install-citus.sh as root (make test does); docs/deployment.md, \"Citus\""
            if ProcessInfo.processInfo.environment["CI"] == "true" { throw TestClientError(message: message) }
            throw Unavailable(message: message)
        }
    }

    enum Availability: Sendable { case installed, unavailable(String) }
    private static let availability = Mutex<Availability?>(nil)

    private static func install() -> Availability {
        let script = repositoryRoot + "/scripts/install-citus.sh"
        let outcome: Availability
        do {
            let result = try Subprocess.run("/bin/bash", [script])
            outcome = result.status == 0 ? .installed
                : .unavailable(result.output.split(separator: "\n").first.map(String.init) ?? "install-citus.sh exited \(result.status)")
        } catch {
            outcome = .unavailable("\(error)")
        }
        availability.withLock { $0 = outcome }
        return outcome
    }

    static var repositoryRoot: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
    }

    /// Starts the three servers. A free port is found by binding port 0 and closing it, so
    /// another process on this shared machine can take it before the server binds it: a start
    /// that fails is tried again, on other ports, twice, and the last failure says what the
    /// server logged and who holds its port.
    private static func start() throws -> CitusCluster {
        var failures: [String] = []
        for _ in 0..<3 {
            do {
                return try startOnce()
            } catch {
                failures.append("\(error)")
            }
        }
        throw TestClientError(message: "the Citus cluster did not start, three times:\n" + failures.joined(separator: "\n---\n"))
    }

    private static func startOnce() throws -> CitusCluster {
        let directory = "/tmp/tapwire-citus-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        if geteuid() == 0 { _ = try Subprocess.run("/bin/chown", ["postgres:postgres", directory]) }
        let coordinator = try EmbeddedPostgres(dataDirectory: directory + "/coordinator", port: EmbeddedPostgres.freePort(), durable: false)
        let workers = try (1...2).map { try EmbeddedPostgres(dataDirectory: directory + "/worker\($0)", port: EmbeddedPostgres.freePort(), durable: false) }
        let serverGuard: ServerGuard
        do {
            serverGuard = try ServerGuard.start(directory: directory, dataDirectories: ([coordinator] + workers).map(\.dataDirectory),
                                                binDirectory: coordinator.binDirectory)
        } catch {
            try? FileManager.default.removeItem(atPath: directory)
            throw error
        }
        let cluster = CitusCluster(coordinator: coordinator, workers: workers, directory: directory, serverGuard: serverGuard)
        do {
            for (node, settings) in [(coordinator, coordinatorSettings)] + workers.map({ ($0, nodeSettings) }) {
                try node.initialize()
                let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: node.dataDirectory + "/postgresql.conf"))
                handle.seekToEndOfFile()
                handle.write(Data(("\n" + settings.joined(separator: "\n") + "\n").utf8))
                try handle.close()
                do {
                    try node.start()
                } catch {
                    // What the server wrote, and what else answers on its port.
                    let log = (try? String(contentsOfFile: node.logFile, encoding: .utf8)) ?? "(no log at \(node.logFile))"
                    let listening = (try? Subprocess.run("/usr/bin/ss", ["-ltnp", "sport = :\(node.port)"]).output) ?? ""
                    throw TestClientError(message: "\(error)\nlog of port \(node.port):\n\(log.suffix(3000))\n\(listening)")
                }
                try turnOnSSL(node)
            }
        } catch {
            cluster.stop()
            throw error
        }
        return cluster
    }

    /// Has Citus turn SSL on for the node once, before any test's database: the first
    /// `CREATE EXTENSION citus` on a server without SSL writes `ssl = on` with ALTER SYSTEM,
    /// generates a self-signed key and certificate in the data directory, and reloads. Left to
    /// the tests, parallel tests' first extensions would each write the key and certificate at
    /// once. The extension is dropped again (SSL stays on); the reload is asynchronous, so this
    /// waits until a new session sees it (docs/deployment.md, "Testing on Citus").
    private static func turnOnSSL(_ node: EmbeddedPostgres) throws {
        let connection = try PostgresConnection(url: node.url())
        defer { connection.close() }
        try connection.query("CREATE EXTENSION citus")
        try connection.query("DROP EXTENSION citus")
        let on = eventually(timeout: 30) {
            guard let session = try? PostgresConnection(url: node.url()) else { return false }
            defer { session.close() }
            return (try? session.query("SHOW ssl").scalar) == "on"
        }
        guard on else { throw TestClientError(message: "SSL is not on at port \(node.port) 30 s after Citus turned it on") }
    }

    /// Every node loads Citus.
    static let nodeSettings = ["shared_preload_libraries = 'citus'"]
    /// The coordinator opens at most this many connections to each worker for its sessions'
    /// queries, under the workers' max_connections (what the collectors' sessions fan out to).
    static let coordinatorSettings = nodeSettings + ["citus.shard_count = \(shardCount)", "citus.max_shared_pool_size = 80"]

    /// A new database of the cluster, made as docs/deployment.md says (the database and the
    /// extension on every node, the coordinator told its own address, the workers added), not
    /// migrated. Its URL is the coordinator's.
    public func database(prefix: String = "c") throws -> TestDatabase {
        let database = try plainDatabase(prefix: prefix)
        try distribute(database)
        return database
    }

    /// A new database on the coordinator only, without the extension: plain PostgreSQL.
    public func plainDatabase(prefix: String) throws -> TestDatabase {
        let name = prefix + "_" + String(UInt64.random(in: 0...UInt64.max), radix: 36)
        let admin = try PostgresConnection(url: coordinator.url())
        defer { admin.close() }
        try admin.query("CREATE DATABASE \(name)")
        return TestDatabase(name: name, url: coordinator.url(database: name))
    }

    /// Makes a database of the coordinator a Citus database, as an operator moving to Citus does:
    /// the database on each worker, the extension on every node, the coordinator told its own
    /// address, the workers added. Its tables are laid out by the next `tapwire migrate`.
    public func distribute(_ database: TestDatabase) throws {
        let name = database.name
        for node in [coordinator] + workers {
            if node.port != coordinator.port {
                let admin = try PostgresConnection(url: node.url())
                defer { admin.close() }
                try admin.query("CREATE DATABASE \(name)")
            }
            let connection = try PostgresConnection(url: node.url(database: name))
            defer { connection.close() }
            try connection.query("CREATE EXTENSION citus")
        }
        let connection = try PostgresConnection(url: coordinator.url(database: name))
        defer { connection.close() }
        try connection.query("SELECT citus_set_coordinator_host('127.0.0.1', $1::integer)", [String(coordinator.port)])
        try addingNodes.withLock { _ in
            for worker in workers {
                do {
                    try connection.query("SELECT citus_add_node('127.0.0.1', $1::integer)", [String(worker.port)])
                } catch {
                    // Citus reports the worker's own error only as a WARNING before its
                    // "failure on connection marked as essential": the worker's log has it.
                    let log = (try? String(contentsOfFile: worker.logFile, encoding: .utf8)) ?? ""
                    let errors = log.split(separator: "\n").filter { $0.contains("ERROR") || $0.contains("STATEMENT") }.suffix(6)
                    throw TestClientError(message: "\(error)\nthe worker at port \(worker.port) logged:\n" + errors.joined(separator: "\n"))
                }
            }
        }
    }

    /// `citus_add_node` runs for one database at a time in this process. Adding a worker
    /// propagates the roles to it (`ALTER ROLE postgres …` inside the add's distributed
    /// transaction), and roles are shared by every database of a server: PostgreSQL takes no
    /// lock on a role it alters, so the second of two concurrent adds to one worker, from two
    /// tests' databases, waits for the first and then fails with "tuple concurrently updated",
    /// which the coordinator turns into "failure on connection marked as essential". How often
    /// depended on how the parallel tests' setups overlapped (docs/deployment.md, "Testing on Citus").
    private let addingNodes = Mutex(())

    /// A database as `database(prefix:)` makes, migrated.
    public func migratedDatabase(prefix: String = "c") throws -> TestDatabase {
        let database = try database(prefix: prefix)
        let connection = try database.connect()
        defer { connection.close() }
        try Migrator().migrate(connection)
        return database
    }

    /// Stops the three servers at once (immediate shutdown) and removes their directory. Once.
    public func stop() {
        guard !stopped.withLock({ let was = $0; $0 = true; return was }) else { return }
        for server in workers + [coordinator] where server.isInitialized {
            let command = [server.binDirectory + "/pg_ctl", "-D", server.dataDirectory, "-m", "immediate", "-w", "stop"]
            _ = geteuid() == 0 ? try? Subprocess.run("/sbin/runuser", ["-u", "postgres", "--"] + command)
                               : try? Subprocess.run(command[0], Array(command.dropFirst()))
        }
        try? FileManager.default.removeItem(atPath: directory)
        serverGuard.release()
    }
}
