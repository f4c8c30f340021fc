import Foundation
import TapwireCore
import TapwireStore

/// Where the database is: the URL given (flag or TAPWIRE_DATABASE_URL), or else the embedded
/// cluster that `make run` keeps under .tapwire/ (TAPWIRE_DATA_DIR), on TAPWIRE_PG_PORT.
package struct DatabaseLocation {
    package var url: String
    /// Set when the URL is the embedded cluster.
    package var embedded: EmbeddedPostgres?

    package init(url: String, embedded: EmbeddedPostgres?) {
        self.url = url
        self.embedded = embedded
    }

    package static let defaultPort = 54329

    /// Where `make run` keeps its state (the embedded cluster, the demo app's keys): TAPWIRE_DATA_DIR,
    /// or .tapwire/ in the current directory. Read here only.
    package static func dataDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        environment["TAPWIRE_DATA_DIR"] ?? FileManager.default.currentDirectoryPath + "/.tapwire"
    }

    package static func embeddedCluster(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> EmbeddedPostgres {
        let base = dataDirectory(environment: environment)
        let port = environment["TAPWIRE_PG_PORT"].flatMap { Int($0) } ?? defaultPort
        return try EmbeddedPostgres(dataDirectory: try reachableDataDirectory(base: base), port: port)
    }

    /// As root, PostgreSQL runs as `postgres`, which must be able to reach the data directory. A
    /// checkout under a private directory (mode 700) is not reachable, so the cluster then lives
    /// under /var/tmp/tapwire/<hash of the path> and .tapwire/postgres-location says where.
    package static func reachableDataDirectory(base: String) throws -> String {
        let fm = FileManager.default
        try fm.createDirectory(atPath: base, withIntermediateDirectories: true)
        let preferred = base + "/postgres"
        guard geteuid() == 0 else { return preferred }
        var path = URL(fileURLWithPath: base).standardizedFileURL.path
        var reachable = true
        while !path.isEmpty, path != "/" {
            if let attributes = try? fm.attributesOfItem(atPath: path),
               let mode = attributes[.posixPermissions] as? Int, mode & 0o001 == 0 {
                reachable = false
                break
            }
            path = (path as NSString).deletingLastPathComponent
        }
        if reachable { return preferred }
        let fallback = "/var/tmp/tapwire/" + String(SHA256.hex(Array(base.utf8)).prefix(12)) + "/postgres"
        try fm.createDirectory(atPath: (fallback as NSString).deletingLastPathComponent, withIntermediateDirectories: true,
                               attributes: [.posixPermissions: 0o755])
        try? (fallback + "\n").write(toFile: base + "/postgres-location", atomically: true, encoding: .utf8)
        return fallback
    }

    /// For commands other than `serve`: the given URL, or the embedded cluster if it is running.
    package static func resolve(_ arguments: inout Arguments) throws -> DatabaseLocation {
        if let url = try arguments.option("database-url") ?? ProcessInfo.processInfo.environment["TAPWIRE_DATABASE_URL"], !url.isEmpty {
            return DatabaseLocation(url: url, embedded: nil)
        }
        let cluster = try embeddedCluster()
        guard cluster.isInitialized, cluster.isRunning else {
            throw CLIError("no database: pass --database-url or set TAPWIRE_DATABASE_URL, or start the embedded one with `make run`")
        }
        return DatabaseLocation(url: cluster.url(database: "tapwire"), embedded: cluster)
    }

    package func connect() throws -> PostgresConnection {
        do {
            return try PostgresConnection(url: url, applicationName: "tapwire-cli")
        } catch {
            throw CLIError("cannot connect to the database: \(error.message)")
        }
    }

    /// Refuses to work on a schema older than this binary expects.
    package static func requireCurrentSchema(_ connection: PostgresConnection) throws {
        let migrator = Migrator()
        let version = try migrator.currentVersion(connection)
        if version < migrator.latestVersion {
            throw CLIError("the database schema is at version \(version) and this tapwire needs \(migrator.latestVersion): run `tapwire migrate` first")
        }
    }
}
