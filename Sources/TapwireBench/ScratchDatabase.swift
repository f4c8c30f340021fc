import Foundation
import TapwireCommandLine
import TapwireStore

/// A database a benchmark writes to, next to the one the URL names, so it never touches real
/// data; dropped at the end unless kept.
struct ScratchDatabase {
    var url: String
    var adminURL: String
    var name: String

    /// A new database named `tapwire_bench_<time>_<suffix>`.
    static func create(beside location: DatabaseLocation, suffix: String) throws -> ScratchDatabase {
        try create(named: "tapwire_bench_\(Int(Date().timeIntervalSince1970))_" + suffix, beside: location)
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

    func drop() {
        guard let admin = try? PostgresConnection(url: adminURL) else { return }
        _ = try? admin.runBuiltStatement(BenchSQL.dropDatabaseStatement, [name], name: "DROP DATABASE")
        admin.close()
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
