import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif
import TapwireStore

/// A PostgreSQL server in a network namespace of the test's own, reached from this process over
/// a veth pair, so a test can cut the network between a collector and its database (the link
/// taken down: packets go nowhere, nobody is told) and restore it. Needs root, as creating a
/// namespace does. Everything it makes (namespace, link, cluster, directory) `stop` removes.
public final class PostgresBehindLink: Sendable {
    public let address: String
    public let port: Int
    public let server: EmbeddedPostgres
    let namespace: String
    let hostLink: String
    let directory: String
    private let stopped = Mutex(false)
    /// Stops the server and removes the link and namespace if this process ends without `stop()`.
    private let serverGuard: ServerGuard

    private init(address: String, port: Int, server: EmbeddedPostgres, namespace: String, hostLink: String, directory: String,
                 serverGuard: ServerGuard) {
        self.address = address
        self.port = port
        self.server = server
        self.namespace = namespace
        self.hostLink = hostLink
        self.directory = directory
        self.serverGuard = serverGuard
    }

    public static var isPossible: Bool { geteuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/sbin/ip") }

    static func ip(_ arguments: [String]) throws {
        let result = try Subprocess.run("/usr/sbin/ip", arguments)
        guard result.status == 0 else { throw TestClientError(message: "ip \(arguments.joined(separator: " ")): \(result.output)") }
    }

    public static func start() throws -> PostgresBehindLink {
        guard isPossible else { throw TestClientError(message: "a network namespace needs root and iproute2 (`ip`)") }
        let tag = String(UInt32.random(in: 0...UInt32.max), radix: 16)
        let namespace = "tw" + tag, hostLink = "twh" + tag, innerLink = "twn" + tag
        let subnet = "10.231.\(Int.random(in: 0...255))."
        let base = Int.random(in: 0...63) * 4
        let hostAddress = subnet + String(base + 1), address = subnet + String(base + 2)
        let directory = "/tmp/tapwire-netns-\(getpid())-\(tag)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        _ = try Subprocess.run("/bin/chown", ["postgres:postgres", directory])
        let server = try EmbeddedPostgres(dataDirectory: directory + "/data", port: EmbeddedPostgres.freePort(), durable: false)
        let serverGuard = try ServerGuard.start(directory: directory, dataDirectories: [server.dataDirectory],
                                                binDirectory: server.binDirectory, namespace: namespace, link: hostLink)
        let made = PostgresBehindLink(address: address, port: server.port, server: server, namespace: namespace, hostLink: hostLink,
                                      directory: directory, serverGuard: serverGuard)
        do {
            try ip(["netns", "add", namespace])
            try ip(["link", "add", hostLink, "type", "veth", "peer", "name", innerLink])
            try ip(["link", "set", innerLink, "netns", namespace])
            try ip(["addr", "add", hostAddress + "/30", "dev", hostLink])
            try ip(["link", "set", hostLink, "up"])
            try ip(["-n", namespace, "addr", "add", address + "/30", "dev", innerLink])
            try ip(["-n", namespace, "link", "set", innerLink, "up"])
            try ip(["-n", namespace, "link", "set", "lo", "up"])
            try server.initialize()
            let hba = server.dataDirectory + "/pg_hba.conf"
            let rules = try String(contentsOfFile: hba, encoding: .utf8) + "host all all \(hostAddress)/32 trust\n"
            try rules.write(toFile: hba, atomically: false, encoding: .utf8)
            let settings = "-p \(server.port) -k \(server.dataDirectory) -c listen_addresses=\(address) -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
            let started = try Subprocess.run("/usr/sbin/ip", ["netns", "exec", namespace, "/sbin/runuser", "-u", "postgres", "--",
                                                              server.binDirectory + "/pg_ctl", "-D", server.dataDirectory, "-l",
                                                              directory + "/postgres.log", "-o", settings, "-w", "-t", "60", "start"],
                                             captureOutput: false)
            guard started.status == 0 else {
                throw TestClientError(message: "PostgreSQL did not start in the namespace: \((try? String(contentsOfFile: directory + "/postgres.log", encoding: .utf8)) ?? "")")
            }
        } catch {
            made.stop()
            throw error
        }
        return made
    }

    public func url(database: String) -> String {
        "postgresql://postgres@\(address):\(port)/\(database)?sslmode=disable"
    }

    /// Takes the link down: from now on nothing passes between this process and the server.
    public func cut() throws { try Self.ip(["link", "set", hostLink, "down"]) }

    /// Brings the link back up.
    public func restore() throws { try Self.ip(["link", "set", hostLink, "up"]) }

    /// Stops the server, removes the link (both ends), the namespace and the directory. Once.
    public func stop() {
        guard !stopped.withLock({ let was = $0; $0 = true; return was }) else { return }
        if server.isInitialized {
            _ = try? Subprocess.run("/usr/sbin/ip", ["netns", "exec", namespace, "/sbin/runuser", "-u", "postgres", "--",
                                                     server.binDirectory + "/pg_ctl", "-D", server.dataDirectory, "-m", "immediate", "-w", "stop"])
        }
        try? Self.ip(["link", "del", hostLink])
        try? Self.ip(["netns", "del", namespace])
        try? FileManager.default.removeItem(atPath: directory)
        serverGuard.release()
    }

    deinit { stop() }
}
