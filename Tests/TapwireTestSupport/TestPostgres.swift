import Foundation
import Synchronization
import TapwireCore
import TapwireStore

/// The PostgreSQL server tests run against: TAPWIRE_TEST_DATABASE_URL (what `make test` starts),
/// or else a private cluster this process starts under /tmp and stops at exit.
public enum TestPostgres {
    private static let state = Mutex<(url: String?, cluster: EmbeddedPostgres?, template: String?)>((nil, nil, nil))

    /// A superuser URL to the server's maintenance database.
    public static func serverURL() throws -> String {
        try state.withLock { s in
            if let url = s.url { return url }
            if let env = ProcessInfo.processInfo.environment["TAPWIRE_TEST_DATABASE_URL"], !env.isEmpty {
                s.url = env
                return env
            }
            let cluster = try PrivateCluster.make(durable: false)
            try cluster.start()
            s.cluster = cluster
            s.url = cluster.url()
            clusterToStop.withLock { $0 = cluster }
            atexit {
                if let cluster = clusterToStop.withLock({ $0 }) { try? cluster.removeData() }
            }
            return cluster.url()
        }
    }

    /// `postgresql://…/name` on the same server.
    public static func url(database name: String) throws -> String {
        let server = try serverURL()
        guard let slash = server.range(of: "/", options: .backwards, range: server.index(server.startIndex, offsetBy: 14)..<server.endIndex) else {
            return server
        }
        let rest = server[slash.upperBound...]
        let query = rest.firstIndex(of: "?").map { String(rest[$0...]) } ?? ""
        return String(server[..<slash.upperBound]) + name + query
    }

    /// A new, empty database (no migrations) on the server; returns its name.
    public static func blankDatabase(prefix: String) throws -> String {
        let name = prefix + "_" + String(UInt64.random(in: 0...UInt64.max), radix: 36)
        let admin = try PostgresConnection(url: try serverURL())
        defer { admin.close() }
        try admin.query("CREATE DATABASE \(name)")
        return name
    }

    /// A migrated template database, made once per process; fresh test databases copy it.
    static func templateName() throws -> String {
        if let name = state.withLock({ $0.template }) { return name }
        let name = "tapwire_tpl_" + String(SHA256.hex(Array(EmbeddedSQL.migrations.map(\.sql).joined().utf8)).prefix(12))
        let admin = try PostgresConnection(url: try serverURL())
        defer { admin.close() }
        // Several test processes may share a server: serialize template creation.
        try admin.query("SELECT pg_advisory_lock(7358999)")
        defer { _ = try? admin.query("SELECT pg_advisory_unlock(7358999)") }
        let exists = !(try admin.query("SELECT 1 FROM pg_database WHERE datname = $1", [name]).rows.isEmpty)
        if !exists {
            let building = name + "_build"
            _ = try? admin.query("DROP DATABASE IF EXISTS \(building)")
            try admin.query("CREATE DATABASE \(building)")
            let connection = try PostgresConnection(url: try url(database: building))
            try Migrator().migrate(connection)
            connection.close()
            try admin.query("ALTER DATABASE \(building) RENAME TO \(name)")
        }
        state.withLock { $0.template = name }
        return name
    }
}

/// A private cluster for tests that stop and start PostgreSQL themselves. Guarded until this
/// process ends: stopped and removed then if its owner has not (`ServerGuard`).
public enum PrivateCluster {
    public static func make(durable: Bool) throws -> EmbeddedPostgres {
        let base = "/tmp/tapwire-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        let cluster = try EmbeddedPostgres(dataDirectory: base + "/data", port: EmbeddedPostgres.freePort(), durable: durable)
        try ServerGuard.untilExit(directory: base, dataDirectories: [cluster.dataDirectory], binDirectory: cluster.binDirectory)
        return cluster
    }
}

/// The private cluster started when no TAPWIRE_TEST_DATABASE_URL was given, stopped at exit.
private let clusterToStop = Mutex<EmbeddedPostgres?>(nil)

/// A fresh, migrated database of its own for one test, so tests run in parallel without
/// seeing each other's rows.
public struct TestDatabase: Sendable {
    public let name: String
    public let url: String

    /// A database made some other way (a Citus cluster's, say).
    public init(name: String, url: String) {
        self.name = name
        self.url = url
    }

    public static func create() throws -> TestDatabase {
        let template = try TestPostgres.templateName()
        let name = "t_" + String(UInt64.random(in: 0...UInt64.max), radix: 36)
        let admin = try PostgresConnection(url: try TestPostgres.serverURL())
        defer { admin.close() }
        var attempt = 0
        while true {
            do {
                try admin.query("CREATE DATABASE \(name) TEMPLATE \(template)")
                break
            } catch {
                // "source database is being accessed by other users": another test is copying it.
                attempt += 1
                if attempt > 50 { throw error }
                Thread.sleep(forTimeInterval: 0.05 * Double(attempt))
            }
        }
        return TestDatabase(name: name, url: try TestPostgres.url(database: name))
    }

    public func connect() throws -> PostgresConnection { try PostgresConnection(url: url, applicationName: "tapwire-test") }

    /// Runs one query on a short-lived connection.
    @discardableResult
    public func query(_ sql: String, _ parameters: [String?] = []) throws -> QueryResult {
        let connection = try connect()
        defer { connection.close() }
        return try connection.query(sql, parameters)
    }

    /// A new app with its keys.
    public func createApp(_ name: String? = nil) throws -> CreatedApp {
        let connection = try connect()
        defer { connection.close() }
        return try AppStore().createApp(named: name ?? "app-" + String(UInt32.random(in: 0...UInt32.max), radix: 36), on: connection)
    }
}
