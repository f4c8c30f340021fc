import Foundation
import Testing
import TapwireCore
import TapwireStore
import TapwireTestSupport
import TapwireRollupOracle

/// Drives the built `tapwire` binary the way a user would: migrate, create an app, serve, post,
/// rotate keys, Ctrl-C.
@Suite(.serialized) struct BinaryTests {
    func blankDatabase() throws -> String {
        let name = "e2e_" + String(UInt32.random(in: 0...UInt32.max))
        let admin = try PostgresConnection(url: try TestPostgres.serverURL())
        defer { admin.close() }
        try admin.query("CREATE DATABASE \(name)")
        return try TestPostgres.url(database: name)
    }

    @Test func aUsersFirstSession() throws {
        let url = try blankDatabase()
        let migrate = try TapwireBinary.run(["migrate", "--database-url", url])
        #expect(migrate.status == 0)
        #expect(migrate.output.contains("applied 0001_core"))
        let again = try TapwireBinary.run(["migrate"], environment: ["TAPWIRE_DATABASE_URL": url])
        #expect(again.status == 0)
        #expect(again.output.contains("schema is current"))

        let created = try TapwireBinary.run(["apps", "create", "shop", "--format", "json", "--database-url", url])
        #expect(created.status == 0)
        let keys = try #require(try? JSONParser().parse(created.output.trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(keys["app"]?.stringValue == "shop")
        let writeKey = try #require(keys["writeKey"]?.stringValue)
        let readKey = try #require(keys["readKey"]?.stringValue)
        #expect(writeKey.hasPrefix("tww_") && readKey.hasPrefix("twr_"))

        let duplicate = try TapwireBinary.run(["apps", "create", "shop", "--database-url", url])
        #expect(duplicate.status == 2)
        #expect(duplicate.output.contains("already exists"))

        let server = try TapwireBinary.serve(databaseURL: url, extraArguments: ["--key-cache-seconds", "0"])
        let body = TestBatch.body((0..<50).map { _ in TestBatch.event() })
        let first = try server.client.post("/v1/batch", key: writeKey, json: body)
        #expect(first.status == 200)
        #expect(first.json?["accepted"]?.numberValue?.integer == 50)
        #expect(try server.client.post("/v1/batch", key: writeKey, json: body).json?["duplicates"]?.numberValue?.integer == 50)

        let listed = try TapwireBinary.run(["apps", "list", "--format", "json", "--database-url", url])
        #expect(listed.output.contains("\"shop\""))

        let rotated = try TapwireBinary.run(["keys", "rotate", "shop", "--kind", "write", "--grace", "0", "--format", "json", "--database-url", url])
        #expect(rotated.status == 0)
        let newKey = try #require(try? JSONParser().parse(rotated.output.trimmingCharacters(in: .whitespacesAndNewlines))["key"]?.stringValue)
        #expect(try server.client.post("/v1/batch", key: writeKey, json: TestBatch.body([TestBatch.event()])).status == 401)
        #expect(try server.client.post("/v1/batch", key: newKey, json: TestBatch.body([TestBatch.event()])).status == 200)

        #expect(server.interrupt() == 0)
        let log = server.log
        let lines = log.split(separator: "\n").filter { $0.hasPrefix("{") }
        #expect(lines.count >= 5)
        for line in lines {
            let entry = try? JSONParser().parse(String(line))
            #expect(entry?["level"]?.stringValue != nil && entry?["msg"]?.stringValue != nil)
        }
        #expect(log.contains("\"accepted\":50"))
        #expect(!log.contains(writeKey) && !log.contains(newKey) && !log.contains(readKey))
        let conn = try PostgresConnection(url: url)
        defer { conn.close() }
        #expect(try conn.query("SELECT count(*) FROM events").scalar == "51")
    }

    @Test func twoCollectorProcessesStoreARetriedBatchOnce() throws {
        let url = try blankDatabase()
        #expect(try TapwireBinary.run(["migrate", "--database-url", url]).status == 0)
        let created = try TapwireBinary.run(["apps", "create", "twin", "--format", "json", "--database-url", url])
        let writeKey = try #require(try? JSONParser().parse(created.output.trimmingCharacters(in: .whitespacesAndNewlines))["writeKey"]?.stringValue)
        let a = try TapwireBinary.serve(databaseURL: url)
        let b = try TapwireBinary.serve(databaseURL: url)
        defer {
            _ = a.interrupt()
            _ = b.interrupt()
        }
        let body = TestBatch.body((0..<500).map { _ in TestBatch.event() })
        let results = ResultsBox()
        DispatchQueue.concurrentPerform(iterations: 8) { i in
            let response = try? (i % 2 == 0 ? a : b).client.post("/v1/batch", key: writeKey, json: body)
            results.add(response?.json?["accepted"]?.numberValue?.integer ?? -1, response?.json?["duplicates"]?.numberValue?.integer ?? -1)
        }
        #expect(results.accepted == 500)
        #expect(results.duplicates == 7 * 500)
        let conn = try PostgresConnection(url: url)
        defer { conn.close() }
        #expect(try conn.query("SELECT count(*) FROM events").scalar == "500")
    }

    /// `--malloc-arenas` reaches glibc before the collector's threads allocate: with one arena
    /// every thread shares the main heap, and no thread arena (a 64 MiB-aligned reservation of
    /// 64 MiB, docs/ingestion.md "The collector's memory") is mapped however many threads
    /// posted; with glibc's default (0) the same load maps some.
    @Test func theCollectorsThreadsShareTheArenasItIsGiven() throws {
        let url = try blankDatabase()
        #expect(try TapwireBinary.run(["migrate", "--database-url", url]).status == 0)
        let created = try TapwireBinary.run(["apps", "create", "arenas", "--format", "json", "--database-url", url])
        let writeKey = try #require(try? JSONParser().parse(created.output.trimmingCharacters(in: .whitespacesAndNewlines))["writeKey"]?.stringValue)
        func threadArenas(_ arenas: String) throws -> Int {
            let server = try TapwireBinary.serve(databaseURL: url, extraArguments: ["--malloc-arenas", arenas])
            defer { _ = server.interrupt() }
            DispatchQueue.concurrentPerform(iterations: 16) { _ in
                _ = try? server.client.post("/v1/batch", key: writeKey, json: TestBatch.body((0..<200).map { _ in TestBatch.event() }))
            }
            #expect(try server.client.post("/v1/batch", key: writeKey, json: TestBatch.body([TestBatch.event()])).status == 200)
            let maps = try String(contentsOfFile: "/proc/\(server.child.pid)/maps", encoding: .utf8)
            return Self.threadArenaHeaps(maps)
        }
        #expect(try threadArenas("1") == 0)
        #expect(try threadArenas("0") >= 2)
    }

    /// glibc's thread arenas in /proc/PID/maps: each heap is an anonymous reservation of 64 MiB
    /// aligned on 64 MiB, its used part read-write and the rest inaccessible.
    static func threadArenaHeaps(_ maps: String) -> Int {
        let size: UInt64 = 64 << 20
        var regions: [(start: UInt64, end: UInt64, access: Substring)] = []
        for line in maps.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count == 5, let dash = fields[0].firstIndex(of: "-"),
                  let start = UInt64(fields[0][..<dash], radix: 16), let end = UInt64(fields[0][fields[0].index(after: dash)...], radix: 16)
            else { continue }
            regions.append((start, end, fields[1]))
        }
        var heaps = 0
        for (i, region) in regions.enumerated() where region.start % size == 0 && region.access.hasPrefix("rw") {
            if region.end - region.start == size { heaps += 1; continue }
            if i + 1 < regions.count, regions[i + 1].start == region.end, regions[i + 1].access.hasPrefix("---"),
               regions[i + 1].end - region.start == size { heaps += 1 }
        }
        return heaps
    }

    @Test func badUsageIsAClearMessageAndExitCode2() throws {
        let port = try TapwireBinary.run(["serve", "--port", "http"])
        #expect(port.status == 2)
        #expect(port.output.contains("--port must be a whole number"))
        let connections = try TapwireBinary.run(["serve", "--rollup-fold-connections", "4"])
        #expect(connections.status == 2)
        #expect(connections.output.contains("--rollup-fold-connections must be 1 to 3"))
        let unknown = try TapwireBinary.run(["serve", "--colour", "blue", "--database-url", "postgresql://127.0.0.1:1/x"])
        #expect(unknown.status == 2)
        #expect(unknown.output.contains("unknown option --colour"))
        let noDB = try TapwireBinary.run(["apps", "list", "--database-url", "postgresql://tapwire@127.0.0.1:1/none?connect_timeout=2"])
        #expect(noDB.status == 2)
        #expect(noDB.output.contains("cannot connect to the database"))
        let help = try TapwireBinary.run(["serve", "--help"])
        #expect(help.status == 0)
        #expect(help.output.contains("TAPWIRE_RATE_LIMIT"))
    }

    @Test func theReadmeDocumentsEverySetting() throws {
        let help = try TapwireBinary.run(["serve", "--help"]).output
        let readme = try String(contentsOfFile: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("README.md").path, encoding: .utf8)
        let variables = Set(help.split(whereSeparator: { !$0.isLetter && $0 != "_" }).filter { $0.hasPrefix("TAPWIRE_") }.map(String.init))
        #expect(variables.count >= 15)
        for variable in variables {
            #expect(readme.contains("`\(variable)`"), "README.md does not document \(variable)")
        }
        #expect(readme.contains("make run") && readme.contains("make test"))
        // The defaults the help prints come from the configuration; the README's table must agree.
        var checked = 0
        for line in help.split(separator: "\n") {
            let words = line.split(separator: " ")
            guard words.count == 4, words[1].hasPrefix("TAPWIRE_"), words[2] == "(default", words[3].hasSuffix(")") else { continue }
            let value = words[3].dropLast()
            guard !value.isEmpty, value.allSatisfy({ $0.isNumber || $0.isLetter || $0 == "." }) else { continue }
            #expect(readme.contains("| `\(words[1])` | `\(value)` |"), "README.md gives another default for \(words[1]) than \(value)")
            checked += 1
        }
        #expect(checked >= 15)
    }

    /// The shipped binary carries no tooling: no benchmark commands, and none of the soak's SQL
    /// (its "slow database" fault installs a trigger that makes every dedup claim sleep).
    @Test func theProductCarriesNoBenchmarkOrSoakCode() throws {
        let help = try TapwireBinary.run(["--help"])
        #expect(help.status == 0)
        #expect(help.output.contains("serve") && !help.output.contains("bench"))
        let bench = try TapwireBinary.run(["bench", "--database-url", "postgresql://127.0.0.1:1/x"])
        #expect(bench.status == 2)
        #expect(bench.output.contains("unknown command bench"))

        let binary = try #require(FileManager.default.contents(atPath: try TapwireBinary.path()))
        // The check can see embedded SQL: the product's own queries are there.
        #expect(binary.range(of: Data(EmbeddedSQL.claimEventIds.text.utf8)) != nil)
        for (name, sql) in [("slowInstall", SoakSQL.slowInstall), ("slowRemove", SoakSQL.slowRemove), ("integrity", SoakSQL.integrity),
                            ("sabotageDelete", SoakSQL.sabotageDelete), ("storedIds", SoakSQL.storedIds)] {
            #expect(binary.range(of: Data(sql.text.utf8)) == nil, "the tapwire binary embeds sql/soak's \(name)")
        }
        #expect(binary.range(of: Data("tapwire_soak_slow".utf8)) == nil)
        // Nor the rollups' SQL oracle: the rebuild uses the collector's own Swift aggregates.
        for statement in OracleSQL.freshRowStatements.map(\.sql) + [OracleSQL.stageEvents, OracleSQL.createStaging] {
            #expect(binary.range(of: Data(statement.text.utf8)) == nil, "the tapwire binary embeds \(statement.name)")
        }
        #expect(binary.range(of: Data("staging_events".utf8)) == nil)
    }
}

import Synchronization
final class ResultsBox: Sendable {
    private let state = Mutex<(Int64, Int64)>((0, 0))
    func add(_ accepted: Int64, _ duplicates: Int64) { state.withLock { $0.0 += accepted; $0.1 += duplicates } }
    var accepted: Int64 { state.withLock { $0.0 } }
    var duplicates: Int64 { state.withLock { $0.1 } }
}
