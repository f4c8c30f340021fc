import Foundation
import Testing
import TapwireCore
import TapwireStore
import TapwireTestSupport

/// The deployment files, checked without a Docker engine: docker-compose.yml, the Dockerfile
/// and what they mount (scripts/check-deploy.sh), the packages of the runtime image, and the
/// read-only role Grafana connects as.
@Suite(.serialized) struct DeploymentTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    func checkDeploy(root: String = DeploymentTests.root) throws -> Subprocess.Result {
        try Subprocess.run("/bin/bash", [Self.root + "/scripts/check-deploy.sh", "--root", root, "--tapwire", try TapwireBinary.path()])
    }

    @Test func theComposeStackChecksOut() throws {
        let result = try checkDeploy()
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains(", 0 failed"))
        // The real tools ran, not only the Python checks.
        #expect(!result.output.contains("skipped"), "\(result.output)")
    }

    /// A copy of the files the checker reads, for breaking one thing at a time.
    func copyOfTheDeployment() throws -> String {
        let fm = FileManager.default
        let copy = NSTemporaryDirectory() + "tapwire-deploy-\(UInt32.random(in: 0...UInt32.max))"
        for item in ["docker-compose.yml", ".env.example", "Dockerfile", "Makefile", ".gitignore", ".dockerignore", "deploy", "dashboards",
                     "scripts", "Sources/tapwire/Settings.swift"] {
            let target = copy + "/" + item
            try fm.createDirectory(atPath: (target as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try fm.copyItem(atPath: Self.root + "/" + item, toPath: target)
        }
        return copy
    }

    func edit(_ path: String, _ old: String, _ new: String) throws {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.contains(old), "\(path) no longer contains \(old)")
        try text.replacingOccurrences(of: old, with: new).write(toFile: path, atomically: true, encoding: .utf8)
    }

    @Test func theChecksCatchEachKindOfDrift() throws {
        let copy = try copyOfTheDeployment()
        defer { try? FileManager.default.removeItem(atPath: copy) }
        let clean = try checkDeploy(root: copy)
        #expect(clean.status == 0, "the unmodified copy must pass: \(clean.output)")

        // Each breakage, undone before the next, must fail with its own message.
        let cases: [(file: String, old: String, new: String, expected: String)] = [
            ("docker-compose.yml", "TAPWIRE_PORT: \"8080\"", "TAPWIRE_PORT: \"9000\"", "publishes container port 8080, the collector listens on 9000"),
            ("docker-compose.yml", "TAPWIRE_HOST: 0.0.0.0", "TAPWIRE_HOST: 127.0.0.1", "TAPWIRE_HOST must be 0.0.0.0"),
            ("docker-compose.yml", "TAPWIRE_LOG_LEVEL:", "TAPWIRE_LOGLEVEL:", "sets TAPWIRE_LOGLEVEL, which the collector does not read"),
            ("docker-compose.yml", "http://127.0.0.1:8080/healthz", "http://127.0.0.1:8080/health", "health check http://127.0.0.1:8080/health"),
            ("docker-compose.yml", "./deploy/haproxy/haproxy.cfg:", "./deploy/haproxy/missing.cfg:", "mounts deploy/haproxy/missing.cfg, which does not exist"),
            ("docker-compose.yml", "condition: service_healthy\n  environment", "condition: service_started\n  environment", "must wait for postgres to be healthy"),
            ("docker-compose.yml", "@postgres:5432/", "@db:5432/", "names host db, not a service"),
            (".env.example", "POSTGRES_PASSWORD=", "POSTGRES_PASSWORD_UNUSED=", "docker-compose --profile scale config failed"),
            ("Dockerfile", "RUN scripts/install-deps.sh build", "RUN apt-get update && apt-get install -y libpq-dev && scripts/install-deps.sh build", "installs packages itself"),
            ("Dockerfile", "EXPOSE 8080", "EXPOSE 8000", "Dockerfile exposes ['8000']"),
            ("Dockerfile", "TAPWIRE_HOST=0.0.0.0", "TAPWIRE_HOST=127.0.0.1", "Dockerfile must set TAPWIRE_HOST=0.0.0.0"),
            ("dashboards/prometheus/prometheus.yml", "port: 8080", "port: 8081", "prometheus DNS discovery uses port 8081"),
            ("dashboards/prometheus/prometheus.yml", "- job_name: tapwire", "- job_name: collectors", "prometheus has no scrape job `tapwire`"),
            ("deploy/haproxy/haproxy.cfg", "collector:8080", "collector:8081", "haproxy sends to collector:8081"),
            ("deploy/haproxy/haproxy.cfg", "uri /readyz", "uri /ready", "haproxy health check path '/ready'"),
            ("dashboards/grafana/provisioning/datasources/tapwire.yml", "${TAPWIRE_DB_NAME}", "${TAPWIRE_DATABASE}", "uses $TAPWIRE_DATABASE, which service grafana does not set"),
            ("dashboards/grafana/provisioning/datasources/tapwire.yml", "uid: tapwire-pg", "uid: tapwire-postgres", "uses data source uid 'tapwire-pg', which is not provisioned"),
        ]
        for item in cases {
            let path = copy + "/" + item.file
            let original = try String(contentsOfFile: path, encoding: .utf8)
            try edit(path, item.old, item.new)
            let broken = try checkDeploy(root: copy)
            #expect(broken.status == 1, "\(item.file): \(item.new) passed")
            #expect(broken.output.contains(item.expected), "\(item.file): expected “\(item.expected)” in \(broken.output)")
            try original.write(toFile: path, atomically: true, encoding: .utf8)
        }
    }

    func lines(_ result: Subprocess.Result) -> [String] {
        result.output.split(separator: "\n").map { String($0).trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// The runtime stage installs only `install-deps.sh runtime`: it must hold a package for every
    /// shared library the binary loads once the Swift runtime is linked statically, and the
    /// runtime package of every library the build stage compiles against.
    @Test func theRuntimeImageHasEveryLibraryTheBinaryLoads() throws {
        let runtime = Set(lines(try Subprocess.run("/bin/bash", [Self.root + "/scripts/install-deps.sh", "list-runtime"])))
        let build = lines(try Subprocess.run("/bin/bash", [Self.root + "/scripts/install-deps.sh", "list-build"]))
        #expect(runtime.contains("curl"), "the HEALTHCHECK runs curl")
        let dynamic = try Subprocess.run("/usr/bin/readelf", ["-d", try TapwireBinary.path()])
        #expect(dynamic.status == 0)
        let needed = dynamic.output.split(separator: "\n").compactMap { line -> String? in
            guard line.contains("(NEEDED)"), let open = line.firstIndex(of: "["), let close = line.lastIndex(of: "]") else { return nil }
            return String(line[line.index(after: open)..<close])
        }
        // --static-swift-stdlib (Dockerfile) links these in; the debug binary here loads them.
        let swiftRuntime = ["libswift", "libFoundation", "lib_Foundation", "libdispatch", "libBlocksRuntime", "libXCTest", "libTesting"]
        let system = needed.filter { name in !swiftRuntime.contains { name.hasPrefix($0) } }
        #expect(system.contains("libpq.so.5") && system.contains("libmicrohttpd.so.12") && system.contains("libz.so.1"))
        let cache = try Subprocess.run("/sbin/ldconfig", ["-p"])
        for library in system {
            let path = cache.output.split(separator: "\n").first { $0.contains(library + " (") && $0.contains("x86-64") || $0.contains(library + " (libc6,x86-64") }
                .flatMap { $0.components(separatedBy: "=> ").last }
            let found = try #require(path, "\(library) not in the linker cache")
            // Debian's merged /usr: dpkg knows the file by its /usr path and its real name.
            let real = URL(fileURLWithPath: found).resolvingSymlinksInPath().path
            var package = ""
            for candidate in [found, "/usr" + found, real, "/usr" + real] {
                let owner = try Subprocess.run("/usr/bin/dpkg", ["-S", candidate])
                if owner.status == 0 {
                    package = String(owner.output.split(separator: ":").first ?? "")
                    break
                }
            }
            // libc6 and libgcc-s1 are in every Debian image (Essential/required).
            #expect(runtime.contains(package) || ["libc6", "libgcc-s1"].contains(package),
                    "\(library) comes from \(package), which `install-deps.sh runtime` does not install")
        }
        for dev in build where dev.hasSuffix("-dev") {
            let depends = try Subprocess.run("/usr/bin/dpkg-query", ["-W", "-f=${Depends}", dev]).output
            let names = depends.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).split(separator: " ").first.map(String.init) ?? "" }
            #expect(names.contains { runtime.contains($0) }, "\(dev) depends on \(depends), none of which the runtime stage installs")
        }
    }

    /// deploy/postgres/10-grafana-role.sh, run as the postgres image runs it, makes a role that
    /// reads what migrations and collectors create later, and can change nothing.
    @Test func grafanaConnectsReadOnly() throws {
        let server = try TestPostgres.serverURL()
        let name = "grafana_" + String(UInt32.random(in: 0...UInt32.max), radix: 36)
        let dbName = "g_" + String(UInt32.random(in: 0...UInt32.max), radix: 36)
        let admin = try PostgresConnection(url: server)
        defer {
            _ = try? admin.query("DROP DATABASE IF EXISTS \(dbName)")
            _ = try? admin.query("DROP ROLE IF EXISTS \(name)")
            admin.close()
        }
        try admin.query("CREATE DATABASE \(dbName)")
        let parts = URLComponents(string: server)!
        let owner = parts.user ?? "postgres"
        let run = try Subprocess.run("/usr/bin/env", [
            "PGHOST=\(parts.host ?? "127.0.0.1")", "PGPORT=\(parts.port ?? 5432)", "POSTGRES_USER=\(owner)", "POSTGRES_DB=\(dbName)",
            "GRAFANA_DB_USER=\(name)", "GRAFANA_DB_PASSWORD=secret", "/bin/sh", Self.root + "/deploy/postgres/10-grafana-role.sh",
        ])
        #expect(run.status == 0, "\(run.output)")
        let ownerURL = try TestPostgres.url(database: dbName)
        let migrate = try PostgresConnection(url: ownerURL)
        try Migrator().migrate(migrate)
        _ = try AppStore().createApp(named: "shop", on: migrate)
        // A partition made after the role: collectors make them every day.
        try migrate.query("SELECT tapwire_ensure_event_partitions(current_date + 30, current_date + 30)")
        migrate.close()

        let readerURL = ownerURL.replacingOccurrences(of: "//\(owner)@", with: "//\(name):secret@")
        let reader = try PostgresConnection(url: readerURL)
        defer { reader.close() }
        #expect(try reader.query("SELECT name FROM apps").scalar == "shop")
        let tables = try reader.query("""
            SELECT c.relname FROM pg_class c WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p')
            """).rows.compactMap { $0[0] }
        #expect(tables.count > 8)
        for table in tables {
            #expect((try? reader.query("SELECT count(*) FROM \(table)")) != nil, "grafana cannot read \(table)")
        }
        #expect(throws: DatabaseError.self) { try reader.query("DELETE FROM apps") }
        #expect(throws: DatabaseError.self) { try reader.query("CREATE TABLE grafana_was_here (x int)") }
        #expect(try reader.query("SHOW default_transaction_read_only").scalar == "on")
    }
}
