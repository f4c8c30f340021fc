import Dispatch
import Foundation
import TapwireCommandLine
import TapwireCore
import TapwireServer
import TapwireStore

enum ServeCommand {
    static var usage: String {
        """
        tapwire serve [options]
          Runs the collector. Without a database URL it starts (and on exit stops) a private
          PostgreSQL cluster under .tapwire/ and migrates it.
          --migrate      apply pending migrations before serving
          --quickstart   also create a `demo` app when there is none, and print its keys and a curl
                         command that posts a gzip batch (what `make run` does)

        Settings (flag, environment variable, default):
        \(Settings.helpText)
        """
    }

    static func run(_ args: inout Arguments) throws -> Int32 {
        let migrate = args.flag("migrate")
        let quickstart = args.flag("quickstart")
        var (configuration, databaseGiven) = try Settings.load(&args)
        try args.finish()
        let logger = Logger(label: "tapwire", minimumLevel: configuration.logLevel)
        // Before the collector's threads (and the embedded cluster's) exist: each would otherwise
        // get an arena of its own.
        let refused = configuration.allocator.apply()
        if !refused.isEmpty {
            logger.warning("the C library did not take these allocator settings", ["settings": .string(refused.joined(separator: ", "))])
        }

        var cluster: EmbeddedPostgres?
        var startedCluster = false
        if !databaseGiven {
            let embedded = try DatabaseLocation.embeddedCluster()
            if !embedded.isRunning {
                logger.info("starting embedded PostgreSQL", ["dir": .string(embedded.dataDirectory), "port": .of(embedded.port)])
                try embedded.start()
                startedCluster = true
            }
            try embedded.createDatabase("tapwire")
            configuration.databaseURL = embedded.url(database: "tapwire")
            cluster = embedded
        }
        defer {
            if startedCluster, let cluster {
                logger.info("stopping embedded PostgreSQL")
                try? cluster.stop()
            }
        }

        do {
            let connection = try DatabaseLocation(url: configuration.databaseURL, embedded: cluster).connect()
            defer { connection.close() }
            if migrate || quickstart || cluster != nil { try Migrator().migrate(connection, logger: logger) }
            try DatabaseLocation.requireCurrentSchema(connection)
            if quickstart { try printQuickstart(connection: connection, port: configuration.http.port) }
        }

        let collector = Collector(configuration: configuration, logger: logger)
        try collector.start()
        waitForTermination()
        logger.info("shutting down")
        collector.stop()
        return 0
    }

    /// Blocks until SIGINT or SIGTERM.
    static func waitForTermination() {
        let done = DispatchSemaphore(value: 0)
        var sources: [any DispatchSourceSignal] = []
        for sig in [SIGINT, SIGTERM] {
            signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            source.setEventHandler { done.signal() }
            source.resume()
            sources.append(source)
        }
        done.wait()
        for source in sources { source.cancel() }
    }

    /// The demo app's keys live in .tapwire/demo-keys.json (mode 600) so `make run` can show
    /// them again on the next start; real apps' keys are shown once and only hashed.
    static func printQuickstart(connection: PostgresConnection, port: Int) throws {
        let base = DatabaseLocation.dataDirectory()
        let keyFile = base + "/demo-keys.json"
        var writeKey: String?
        var readKey: String?
        let store = AppStore()
        if (try? store.app(named: "demo", on: connection)) == nil {
            let created = try store.createApp(named: "demo", on: connection)
            writeKey = created.writeKey.text
            readKey = created.readKey.text
            try? FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
            let json = JSONValue.object([("app", "demo"), ("writeKey", .string(writeKey!)), ("readKey", .string(readKey!))]).serialized()
            _ = FileManager.default.createFile(atPath: keyFile, contents: Data(json.utf8), attributes: [.posixPermissions: 0o600])
        } else if let data = FileManager.default.contents(atPath: keyFile), let json = try? JSONParser().parse(Array(data)) {
            writeKey = json["writeKey"]?.stringValue
            readKey = json["readKey"]?.stringValue
        }
        guard let writeKey, let readKey else {
            print("app `demo` exists but its keys are not in \(keyFile); make new ones with `tapwire keys rotate demo --kind write`")
            return
        }
        print("""

        Tapwire is starting on http://127.0.0.1:\(port)
          app:       demo
          write key: \(writeKey)
          read key:  \(readKey)

        Post a gzip batch:
          printf '{"sentAt":"%s","context":{"appVersion":"1.0","platform":"iOS"},"events":[{"eventId":"%s","type":"delivered","timestamp":"%s","category":"message","hasMedia":true,"mediaTypes":["image"]}]}' \\
            "$(date -u +%FT%TZ)" "$(cat /proc/sys/kernel/random/uuid)" "$(date -u +%FT%TZ)" | gzip | \\
            curl -sS -u '\(writeKey):' -H 'Content-Encoding: gzip' -H 'Content-Type: application/json' \\
                 --data-binary @- http://127.0.0.1:\(port)/v1/batch

        Ctrl-C stops the collector and the database.

        """)
        fflush(nil)
    }
}
