import Foundation
import Synchronization
import TapwireCommandLine
import TapwireCore
import TapwireLoopbackClient
import TapwireServer
import TapwireStore
import TapwireZlib

/// `tapwire-bench ingest`: the collector end to end (HTTP + gzip + JSON + validation + group
/// commit + dedup) against a plain COPY of the same rows into the same table, in the same run.
enum BenchCommand {
    static let usage = """
    tapwire-bench ingest --database-url URL [--connections 8] [--batch-size 500] [--batches 600] [--json FILE]
                         [--tapwire PATH]
      Creates a scratch database next to the one URL names, starts `tapwire serve` on it, posts
      pre-built gzip batches of unique events over keep-alive connections, then loads the same
      rows with plain COPY. Prints events/s, the ratio to COPY, p50/p99 latency at peak and at half
      the peak rate, and the collector's peak RSS.
      --tapwire  the `tapwire` binary to run as the collector (default: TAPWIRE_BINARY, else the
                 one next to this program)
    """

    struct Latencies {
        var samples: [Double] = []
        func percentile(_ p: Double) -> Double {
            guard !samples.isEmpty else { return 0 }
            let sorted = samples.sorted()
            return sorted[min(sorted.count - 1, Int((p * Double(sorted.count)).rounded(.up)) - 1)]
        }
    }

    static func run(_ args: inout Arguments) throws -> Int32 {
        let connections = try args.int("connections") ?? 8
        let batchSize = try args.int("batch-size") ?? 500
        let batchCount = try args.int("batches") ?? 600
        let jsonOut = try args.option("json")
        let tapwire = try tapwirePath(try args.option("tapwire"))
        let location = try DatabaseLocation.resolve(&args)
        try args.finish()

        // A scratch database, so the benchmark never touches real data.
        let scratch = "tapwire_bench_\(Int(Date().timeIntervalSince1970))"
        let admin = try location.connect()
        let quotedScratch = try admin.quotedIdentifier(scratch)
        try admin.query("CREATE DATABASE " + quotedScratch)
        admin.close()
        let url = replaceDatabase(in: location.url, with: scratch)
        defer {
            if let admin = try? PostgresConnection(url: location.url) {
                _ = try? admin.query("DROP DATABASE IF EXISTS " + quotedScratch + " WITH (FORCE)")
                admin.close()
            }
        }
        let setup = try PostgresConnection(url: url)
        try Migrator().migrate(setup)
        let app = try AppStore().createApp(named: "bench", on: setup)
        print("bench: \(batchCount) batches × \(batchSize) events, \(connections) keep-alive connections")

        // Pre-built batches of unique events; the COPY baseline loads the same rows (under another
        // app id, so the collector's dedup never sees them).
        var generator = SeededGenerator(seed: 42)
        let now = Timestamp.now
        let baselineApp = try AppStore().createApp(named: "bench-copy", on: setup)
        func makeRound() throws -> (staged: [StagedBatch], bodies: [[UInt8]]) {
            var staged: [StagedBatch] = []
            var bodies: [[UInt8]] = []
            for b in 0..<batchCount {
                let events = (0..<batchSize).map { i in syntheticEvent(&generator, at: now.adding(seconds: -Double((b * batchSize + i) % 3600))) }
                let context = DeviceContext(appVersion: ["3.2.1", "3.3.0"][b % 2], build: "412", platform: b % 5 == 0 ? "watchOS" : "iOS",
                                            osVersion: "18.1", sdk: "tapwire-bench/1.0")
                staged.append(StagedBatch(appId: baselineApp.appId, receivedAt: now, context: context, events: events))
                bodies.append(try Zlib.compress(wireJSON(events, context: context, sentAt: now)))
            }
            return (staged, bodies)
        }
        let rounds = try (0..<3).map { _ in try makeRound() }
        let totalEvents = batchCount * batchSize
        print("bench: \(totalEvents) events a round, \(rounds[0].bodies.reduce(0) { $0 + $1.count } / 1024) KiB gzip on the wire, 3 rounds")

        // The collector's write path alone (staging COPY + dedup + insert + rollups), no HTTP, on
        // rows of its own: the database's share of the end-to-end time.
        let diagnostic = try makeRound().staged.map { StagedBatch(appId: app.appId, receivedAt: $0.receivedAt, context: $0.context, events: $0.events) }
        let writer = EventWriter(connection: setup, partitions: PartitionDays())
        let groupSize = max(1, 10_000 / batchSize)
        let writeStart = monotonicNanoseconds()
        var index = 0
        while index < diagnostic.count {
            _ = try writer.commit(Array(diagnostic[index..<min(diagnostic.count, index + groupSize)]))
            index += groupSize
        }
        let writeRate = Double(totalEvents) / (Double(monotonicNanoseconds() - writeStart) / 1e9)

        // The collector, as a child process so its memory can be read on its own.
        let port = EmbeddedPostgres.freePort()
        let log = NSTemporaryDirectory() + "tapwire-bench-serve-\(port).log"
        let server = try Subprocess.spawn(tapwire, ["serve", "--database-url", url, "--port", String(port), "--log-level", "warning"],
                                          logPath: log, environment: ["TAPWIRE_RATE_LIMIT": "0"])
        defer {
            server.signal(SIGINT)
            if server.wait(timeout: 20) == nil { server.signal(SIGKILL); _ = server.wait(timeout: 5) }
        }
        guard waitForHealth(port: port) else { throw CLIError("the collector did not start; see \(log)") }
        let auth = "Basic " + Data((app.writeKey.text + ":").utf8).base64EncodedString()
        let warm = try (0..<20).map { _ in try Zlib.compress(wireJSON((0..<batchSize).map { _ in syntheticEvent(&generator, at: now) },
                                                                           context: DeviceContext(appVersion: "0", platform: "iOS"), sentAt: now)) }
        _ = try post(warm, port: port, auth: auth, connections: connections, ratePerSecond: nil)

        // Alternate baseline and collector rounds, so both see the same machine: a shared machine's
        // noise moves both, and the medians' ratio is what is quoted.
        let chunk = max(1, 10_000 / batchSize)
        var copyRates: [Double] = []
        var peakRates: [Double] = []
        var peak = LoadResult()
        for (r, round) in rounds.enumerated() {
            let copyStart = monotonicNanoseconds()
            var i = 0
            while i < round.staged.count {
                try BulkLoad.copyEvents(Array(round.staged[i..<min(round.staged.count, i + chunk)]), on: setup)
                i += chunk
            }
            copyRates.append(Double(totalEvents) / (Double(monotonicNanoseconds() - copyStart) / 1e9))
            let start = monotonicNanoseconds()
            let result = try post(round.bodies, port: port, auth: auth, connections: connections, ratePerSecond: nil)
            peakRates.append(Double(totalEvents) / (Double(monotonicNanoseconds() - start) / 1e9))
            guard result.failures == 0 else { throw CLIError("\(result.failures) batches failed at peak; see \(log)") }
            peak.latencies.samples += result.latencies.samples
            print(String(format: "round %d: COPY %.0f events/s, collector %.0f events/s (%.0f%%)", r + 1, copyRates[r], peakRates[r],
                         peakRates[r] / copyRates[r] * 100))
        }
        setup.close()
        let copyRate = median(copyRates), peakRate = median(peakRates)

        // Half the peak rate, paced: latency when the collector is not saturated.
        let halfBodies = try (0..<max(40, batchCount / 2)).map { _ in
            try Zlib.compress(wireJSON((0..<batchSize).map { _ in syntheticEvent(&generator, at: now) },
                                       context: DeviceContext(appVersion: "3.2.1", platform: "iOS"), sentAt: now))
        }
        let half = try post(halfBodies, port: port, auth: auth, connections: connections, ratePerSecond: peakRate / 2 / Double(batchSize))
        let rss = server.peakResidentBytes

        let check = try PostgresConnection(url: url)
        let stored = Int(try check.query(BenchSQL.storedEvents, [String(app.appId)]).scalar ?? "0") ?? 0
        check.close()
        let expected = totalEvents * (rounds.count + 1) + halfBodies.count * batchSize
        let ratio = peakRate / copyRate
        print(String(format: "baseline COPY (median):  %.0f events/s", copyRate))
        print(String(format: "write path alone:        %.0f events/s (staging COPY + dedup + COPY + rollups, one connection, no HTTP)", writeRate))
        print(String(format: "end to end (median):     %.0f events/s, %.0f%% of COPY", peakRate, ratio * 100))
        print(String(format: "latency at peak:         p50 %.1f ms  p99 %.1f ms", peak.latencies.percentile(0.5) * 1000, peak.latencies.percentile(0.99) * 1000))
        print(String(format: "latency at half peak:    p50 %.1f ms  p99 %.1f ms  (%.0f events/s offered)", half.latencies.percentile(0.5) * 1000,
                     half.latencies.percentile(0.99) * 1000, peakRate / 2))
        print(String(format: "collector peak RSS:      %.1f MiB", Double(rss) / 1_048_576))
        print("stored: \(stored) of \(expected) posted (every 200 checked against the table)")
        if let jsonOut {
            let result = JSONValue.object([
                ("eventsPerRound", .int(totalEvents)), ("copyEventsPerSecond", .double(copyRate)), ("endToEndEventsPerSecond", .double(peakRate)),
                ("writePathEventsPerSecond", .double(writeRate)),
                ("ratioToCopy", .double(ratio)), ("peakP50Ms", .double(peak.latencies.percentile(0.5) * 1000)),
                ("peakP99Ms", .double(peak.latencies.percentile(0.99) * 1000)),
                ("halfPeakP50Ms", .double(half.latencies.percentile(0.5) * 1000)),
                ("halfPeakP99Ms", .double(half.latencies.percentile(0.99) * 1000)), ("peakRSSBytes", .int(rss)),
            ])
            try result.serialized(pretty: true).write(toFile: jsonOut, atomically: true, encoding: .utf8)
        }
        return stored == expected ? 0 : 1
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
    }

    struct LoadResult {
        var latencies = Latencies()
        var failures = 0
    }

    /// Posts every body once, spread over `connections` keep-alive connections; paced to
    /// `ratePerSecond` batches a second in total when given.
    static func post(_ bodies: [[UInt8]], port: Int, auth: String, connections: Int, ratePerSecond: Double?) throws -> LoadResult {
        let next = Atomic<Int>(0)
        let results = Mutex(LoadResult())
        let start = monotonicNanoseconds()
        let group = DispatchGroup()
        for _ in 0..<connections {
            group.enter()
            Thread {
                defer { group.leave() }
                var local = LoadResult()
                var connection = try? HTTPClientConnection(port: port)
                while true {
                    let i = next.wrappingAdd(1, ordering: .relaxed).oldValue
                    guard i < bodies.count else { break }
                    if let rate = ratePerSecond {
                        let due = start + UInt64(Double(i) / rate * 1e9)
                        let now = monotonicNanoseconds()
                        if due > now { usleep(UInt32((due - now) / 1000)) }
                    }
                    let head = httpRequestHead("POST", "/v1/batch", headers: ["Authorization": auth, "Content-Encoding": "gzip",
                                                                           "Content-Type": "application/json"], contentLength: bodies[i].count)
                    let sent = monotonicNanoseconds()
                    do {
                        if connection == nil { connection = try HTTPClientConnection(port: port) }
                        try connection!.send(head + bodies[i])
                        let response = try connection!.readResponse()
                        local.latencies.samples.append(Double(monotonicNanoseconds() - sent) / 1e9)
                        if response.status != 200 { local.failures += 1 }
                        if response.headers["connection"]?.lowercased() == "close" { connection = nil }
                    } catch {
                        local.failures += 1
                        connection = nil
                    }
                }
                results.withLock {
                    $0.latencies.samples += local.latencies.samples
                    $0.failures += local.failures
                }
            }.start()
        }
        group.wait()
        return results.withLock { $0 }
    }

    static func syntheticEvent(_ g: inout SeededGenerator, at time: Timestamp) -> Event {
        let categories = ["message", "social_post", "promo", "reminder", "news"]
        let category = categories[Int(g.next() % 5)]
        let rich = g.next() % 2 == 0
        let roll = g.next() % 100
        let id = EventID.v7(at: time, using: &g)
        if roll < 60 {
            return Event(eventId: id, type: .delivered, deviceTime: time, notificationId: "apns-\(g.next() % 1_000_000)", category: category,
                         hasMedia: rich, mediaTypes: rich ? .image : [], mediaRequested: rich || g.next() % 10 == 0,
                         categoryRegistered: g.next() % 50 != 0, campaign: "winter-sale", variant: g.next() % 2 == 0 ? "A" : "B")
        }
        if roll < 95 {
            let actions = [SystemAction.open, SystemAction.dismiss, "reply", "like", "delete"]
            let action = actions[Int(g.next() % 5)]
            return Event(eventId: id, type: .response, deviceTime: time, notificationId: "apns-\(g.next() % 1_000_000)", category: category,
                         actionIdentifier: action, userTextLength: action == "reply" ? Int32(g.next() % 120) : nil, hasMedia: rich,
                         mediaTypes: rich ? .image : [], categoryRegistered: true, campaign: "winter-sale", variant: "A",
                         deliveredAt: time.adding(seconds: -Double(g.next() % 600)))
        }
        return Event(eventId: id, type: .sent, deviceTime: time, notificationId: "apns-\(g.next() % 1_000_000)", category: category,
                     campaign: "winter-sale", variant: "B")
    }

    /// The wire JSON of `POST /v1/batch` for events.
    static func wireJSON(_ events: [Event], context: DeviceContext, sentAt: Timestamp) -> [UInt8] {
        var contextMembers: [(String, JSONValue)] = [("appVersion", .string(context.appVersion)), ("platform", .string(context.platform))]
        if let build = context.build { contextMembers.append(("build", .string(build))) }
        if let os = context.osVersion { contextMembers.append(("osVersion", .string(os))) }
        if let sdk = context.sdk { contextMembers.append(("sdk", .string(sdk))) }
        let list: [JSONValue] = events.map { e in
            var m: [(String, JSONValue)] = [("eventId", .string(e.eventId.description)), ("type", .string(e.type.rawValue)),
                                            ("timestamp", .string(e.deviceTime.description)), ("category", .string(e.category))]
            if let n = e.notificationId { m.append(("notificationId", .string(n))) }
            if let a = e.actionIdentifier { m.append(("actionIdentifier", .string(a))) }
            if let l = e.userTextLength { m.append(("userTextLength", .int(l))) }
            if e.type != .sent { m.append(("hasMedia", .bool(e.hasMedia))) }
            if !e.mediaTypes.isEmpty { m.append(("mediaTypes", .array(e.mediaTypes.nameList.map { .string($0) }))) }
            if let r = e.mediaRequested { m.append(("mediaRequested", .bool(r))) }
            if let c = e.categoryRegistered { m.append(("categoryRegistered", .bool(c))) }
            if let c = e.campaign { m.append(("campaign", .string(c))) }
            if let v = e.variant { m.append(("variant", .string(v))) }
            if let d = e.deliveredAt { m.append(("deliveredAt", .string(d.description))) }
            return .object(m)
        }
        return JSONValue.object([("sentAt", .string(sentAt.description)), ("context", .object(contextMembers)), ("events", .array(list))])
            .serializedBytes()
    }

    static func waitForHealth(port: Int) -> Bool {
        for _ in 0..<300 {
            if let connection = try? HTTPClientConnection(port: port),
               (try? connection.send(httpRequestHead("GET", "/healthz", headers: [:], contentLength: nil))) != nil,
               (try? connection.readResponse())?.status == 200 { return true }
            usleep(100_000)
        }
        return false
    }

    /// The `tapwire` binary to start the collector from: --tapwire, else TAPWIRE_BINARY, else the
    /// one next to this executable (both are built into the same .build directory).
    static func tapwirePath(_ option: String?) throws -> String {
        let me = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        let path = option ?? ProcessInfo.processInfo.environment["TAPWIRE_BINARY"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (me as NSString).deletingLastPathComponent + "/tapwire"
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw CLIError("\(path) is not an executable `tapwire` (build it with `swift build --product tapwire`, or pass --tapwire PATH)")
        }
        return path
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
