import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A private PostgreSQL cluster in a directory of its own: what `make run` and tests use when no
/// TAPWIRE_DATABASE_URL is given. PostgreSQL refuses to run as root, so as root every server
/// command runs as the `postgres` user (`runuser -u postgres --`).
public struct EmbeddedPostgres: Sendable {
    public struct LaunchError: Error, CustomStringConvertible, Sendable {
        public var message: String
        public var description: String { message }
    }

    /// Where the cluster lives (PG_VERSION, postgresql.conf, …).
    public let dataDirectory: String
    public let port: Int
    /// Durability off (fsync, synchronous_commit) for throwaway test clusters only.
    public let durable: Bool
    public let binDirectory: String
    public var logFile: String { dataDirectory + ".log" }
    public var socketDirectory: String { dataDirectory }

    public init(dataDirectory: String, port: Int, durable: Bool = true) throws {
        self.dataDirectory = dataDirectory
        self.port = port
        self.durable = durable
        guard let bin = Self.findBinDirectory() else {
            throw LaunchError(message: "PostgreSQL server binaries not found; install them with `apt-get install -y postgresql` (or set TAPWIRE_DATABASE_URL to use an existing server)")
        }
        self.binDirectory = bin
    }

    /// The URL of the `postgres` database of this cluster, over TCP on loopback.
    public func url(database: String = "postgres") -> String {
        "postgresql://postgres@127.0.0.1:\(port)/\(database)?sslmode=disable"
    }

    static var isRoot: Bool { geteuid() == 0 }

    static func findBinDirectory() -> String? {
        let fm = FileManager.default
        if let env = ProcessInfo.processInfo.environment["TAPWIRE_PG_BINDIR"], fm.fileExists(atPath: env + "/pg_ctl") { return env }
        if let versions = try? fm.contentsOfDirectory(atPath: "/usr/lib/postgresql") {
            let sorted = versions.compactMap { Int($0) }.sorted(by: >)
            for v in sorted where fm.fileExists(atPath: "/usr/lib/postgresql/\(v)/bin/pg_ctl") { return "/usr/lib/postgresql/\(v)/bin" }
        }
        for dir in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":") {
            if fm.fileExists(atPath: "\(dir)/pg_ctl"), fm.fileExists(atPath: "\(dir)/initdb") { return String(dir) }
        }
        return nil
    }

    public var isInitialized: Bool { FileManager.default.fileExists(atPath: dataDirectory + "/PG_VERSION") }

    /// Creates the cluster if it does not exist yet (trust auth on loopback only).
    public func initialize() throws {
        if isInitialized { return }
        let fm = FileManager.default
        try fm.createDirectory(atPath: dataDirectory, withIntermediateDirectories: true,
                               attributes: [.posixPermissions: 0o700])
        if Self.isRoot {
            try run("/bin/chown", ["postgres:postgres", dataDirectory], asPostgres: false)
            guard (try? run("/usr/bin/test", ["-w", dataDirectory], asPostgres: true)) != nil else {
                throw LaunchError(message: "the postgres user cannot reach \(dataDirectory): a parent directory is not searchable by other users. Put the cluster elsewhere (TAPWIRE_DATA_DIR) or run as a normal user")
            }
        }
        try run(binDirectory + "/initdb", ["-D", dataDirectory, "-U", "postgres", "--auth=trust", "--encoding=UTF8",
                                           "--locale=C", "--no-instructions"], asPostgres: Self.isRoot)
    }

    public var isRunning: Bool {
        (try? run(binDirectory + "/pg_ctl", ["-D", dataDirectory, "status"], asPostgres: Self.isRoot)) != nil
    }

    public func start() throws {
        try initialize()
        if isRunning { return }
        if Self.isRoot, !FileManager.default.fileExists(atPath: logFile) {
            _ = FileManager.default.createFile(atPath: logFile, contents: nil)
            _ = try? run("/bin/chown", ["postgres:postgres", logFile], asPostgres: false)
        }
        var settings = "-p \(port) -k \(socketDirectory) -c listen_addresses=127.0.0.1 -c max_connections=200"
        if !durable { settings += " -c fsync=off -c synchronous_commit=off -c full_page_writes=off" }
        do {
            // The server inherits pg_ctl's descriptors: give it no pipe to hold open.
            try run(binDirectory + "/pg_ctl", ["-D", dataDirectory, "-l", logFile, "-o", settings, "-w", "-t", "60", "start"],
                    asPostgres: Self.isRoot, captureOutput: false)
        } catch {
            let tail = (try? String(contentsOfFile: logFile, encoding: .utf8))?.split(separator: "\n").suffix(5).joined(separator: "\n") ?? ""
            throw LaunchError(message: "PostgreSQL did not start: \(error)\n\(tail)")
        }
    }

    /// Stops the server (fast shutdown: open sessions are disconnected, committed data is kept).
    public func stop() throws {
        guard isInitialized, isRunning else { return }
        try run(binDirectory + "/pg_ctl", ["-D", dataDirectory, "-m", "fast", "-w", "-t", "60", "stop"], asPostgres: Self.isRoot)
    }

    /// Creates a database if it is missing.
    public func createDatabase(_ name: String) throws {
        let connection = try PostgresConnection(url: url())
        defer { connection.close() }
        let exists = try connection.query(EmbeddedSQL.databaseExists, [name]).rows.isEmpty == false
        if !exists {
            try connection.runBuiltStatement(EmbeddedSQL.createDatabaseStatement, [name], name: "CREATE DATABASE")
        }
    }

    public func removeData() throws {
        try? stop()
        try? FileManager.default.removeItem(atPath: dataDirectory)
        try? FileManager.default.removeItem(atPath: logFile)
    }

    @discardableResult
    func run(_ executable: String, _ arguments: [String], asPostgres: Bool, captureOutput: Bool = true) throws -> String {
        let result = asPostgres
            ? try Subprocess.run("/sbin/runuser", ["-u", "postgres", "--", executable] + arguments, captureOutput: captureOutput)
            : try Subprocess.run(executable, arguments, captureOutput: captureOutput)
        guard result.status == 0 else {
            throw LaunchError(message: "\((executable as NSString).lastPathComponent) failed (\(result.status)): \(result.output.trimmingCharacters(in: [" ", "\n"]))")
        }
        return result.output
    }

    /// A free TCP port on loopback, found by binding port 0.
    public static func freePort() -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return 55432 }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else { return 55432 }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
