import Foundation
import TapwireCommandLine
import TapwireStore

/// A database a benchmark writes to, next to the one the URL names, so it never touches real
/// data; dropped at the end unless kept.
struct ScratchDatabase {
    var url: String
    var adminURL: String
    var name: String
    /// With Citus, the workers' superuser URLs: the scratch database is on each of them too.
    var workerAdminURLs: [String] = []

    /// A new database named `tapwire_bench_<time>_<suffix>`; with `citusWorkers` (their superuser
    /// URLs; `location` is then the coordinator), made on every node and laid out as
    /// docs/deployment.md tells an operator: the extension on every node, then the coordinator
    /// told its address and the workers added.
    static func create(beside location: DatabaseLocation, suffix: String, citusWorkers: [String] = []) throws -> ScratchDatabase {
        let name = "tapwire_bench_\(Int(Date().timeIntervalSince1970))_" + suffix
        for adminURL in citusWorkers {
            let admin = try PostgresConnection(url: adminURL)
            defer { admin.close() }
            try admin.runBuiltStatement(EmbeddedSQL.createDatabaseStatement, [name], name: "CREATE DATABASE")
        }
        var scratch = try create(named: name, beside: location)
        scratch.workerAdminURLs = citusWorkers
        guard !citusWorkers.isEmpty else { return scratch }
        var addresses: [(String, String)] = []
        for workerURL in citusWorkers.map({ replaceDatabase(in: $0, with: name) }) {
            let worker = try PostgresConnection(url: workerURL)
            defer { worker.close() }
            try worker.query(BenchSQL.citusNode)
            let row = try worker.query(BenchSQL.citusServerAddress).rows.first ?? []
            addresses.append((row.first.flatMap { $0 } ?? "127.0.0.1", row.count > 1 ? row[1] ?? "" : ""))
        }
        let coordinator = try PostgresConnection(url: scratch.url)
        defer { coordinator.close() }
        try coordinator.query(BenchSQL.citusNode)
        let own = try coordinator.query(BenchSQL.citusServerAddress).rows.first ?? []
        try coordinator.query(BenchSQL.citusSetCoordinator, [own.first.flatMap { $0 } ?? "127.0.0.1", own.count > 1 ? own[1] : nil])
        for (host, port) in addresses { try coordinator.query(BenchSQL.citusAddWorker, [host, port]) }
        return scratch
    }

    /// A connection to each worker's scratch database, held for the run: its backend's parent is
    /// the worker's postmaster, whose processes' CPU time the benchmark reads.
    func workerConnections() throws -> [PostgresConnection] {
        try workerAdminURLs.map { try PostgresConnection(url: Self.replaceDatabase(in: $0, with: name)) }
    }

    static func create(named name: String, beside location: DatabaseLocation) throws -> ScratchDatabase {
        let admin = try location.connect()
        defer { admin.close() }
        try admin.runBuiltStatement(EmbeddedSQL.createDatabaseStatement, [name], name: "CREATE DATABASE")
        return ScratchDatabase(url: replaceDatabase(in: location.url, with: name), adminURL: location.url, name: name)
    }

    /// The database `name` beside `location`, if it exists (one an earlier run kept).
    static func existing(named name: String, beside location: DatabaseLocation) throws -> ScratchDatabase? {
        let admin = try location.connect()
        defer { admin.close() }
        guard try !admin.query(EmbeddedSQL.databaseExists, [name]).rows.isEmpty else { return nil }
        return ScratchDatabase(url: replaceDatabase(in: location.url, with: name), adminURL: location.url, name: name)
    }

    /// A kept database to time again (`reuse`, an error saying how to keep one when there is
    /// none), else a fresh one in place of any left by an earlier run.
    static func open(named name: String, beside location: DatabaseLocation, reuse: Bool, keptBy hint: String) throws -> ScratchDatabase {
        if reuse {
            guard let kept = try existing(named: name, beside: location) else { throw CLIError("no database \(name) to reuse: \(hint)") }
            return kept
        }
        try existing(named: name, beside: location)?.drop()
        return try create(named: name, beside: location)
    }

    func drop() {
        for adminURL in [adminURL] + workerAdminURLs {
            guard let admin = try? PostgresConnection(url: adminURL) else { continue }
            _ = try? admin.runBuiltStatement(BenchSQL.dropDatabaseStatement, [name], name: "DROP DATABASE")
            admin.close()
        }
    }

    /// The same URL with another database name.
    static func replaceDatabase(in url: String, with name: String) -> String {
        guard let schemeEnd = url.range(of: "://") else { return url }
        let afterScheme = url[schemeEnd.upperBound...]
        guard let slash = afterScheme.firstIndex(of: "/") else { return url + "/" + name }
        let rest = afterScheme[afterScheme.index(after: slash)...]
        let query = rest.firstIndex(of: "?").map { String(rest[$0...]) } ?? ""
        return String(url[..<afterScheme.index(after: slash)]) + name + query
    }
}
