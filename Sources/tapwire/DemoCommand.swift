import Foundation
import Synchronization
import TapwireCommandLine
import TapwireCore
import TapwireDemo
import TapwireLoopbackClient
import TapwireReport
import TapwireServer
import TapwireStore

enum DemoCommand {
    static let usage = """
    tapwire demo [options] [--database-url URL]
      Simulates a population of devices and posts their telemetry through the real HTTP API,
      then prints the engagement report. Deterministic for a given --seed (and --end).
      --url URL           post to a running collector (needs --write-key); default: start one
                          in this process on a free loopback port
      --write-key KEY     the app's write key (with --url)
      --app NAME          the app to create or reuse (default demo); its keys stay in the database
      --seed N            (default 42)
      --devices N         (default 2000)
      --notifications N   (default 150000, about 200k events with responses)
      --days N            (default 14)
      --end TIME          end of the simulated period (default: this hour, UTC)
      --uplift PP         true engagement difference rich − text-only, percentage points (default 6)
      --media-failure F   share of media downloads that fail (default 0.08)
      --retry-fraction F  share of batches posted twice, as retries (default 0.01)
      --outcome-devices N devices that also convert (purchases, subscriptions, signups) after a tap,
                          after a delivery or on their own, posted late and out of order, so the
                          report shows conversions (default 400; 0: none)
      --holdout-devices N devices a campaign assigns at random (10% held out), posted by the
                          sender as assignments, with their conversions, so the report shows a
                          holdout with its intervals and split check (default 20000; 0: none)
      --holdout-effect PP true incremental conversion effect of the campaign among treated
                          devices, percentage points on a 5% base (default 3)
      --concurrency N     parallel connections (default 4)
      --format F          report format printed at the end: table (default), json, csv, md, html, none
      --html FILE         also write the HTML report to FILE
    """

    static func run(_ args: inout Arguments) throws -> Int32 {
        let configuration = try simulation(&args)
        let outcomes = try outcomeSimulation(&args, demo: configuration)
        let holdout = try holdoutSimulation(&args, demo: configuration)
        let concurrency = max(1, min(64, try args.int("concurrency") ?? 4))
        let appName = try args.option("app") ?? "demo"
        let formatName = try args.option("format") ?? "table"
        let htmlOut = try args.option("html")
        let format = formatName == "none" ? nil : ReportOutputFormat(name: formatName)
        if formatName != "none", format == nil { throw CLIError("--format must be table, json, csv, md, html or none") }
        let target = try Target.resolve(&args, appName: appName)
        defer { target.collector?.stop() }

        let plan = DemoSimulator(configuration).plan()
        let progress = Progress(total: plan.batches.reduce(0) { $0 + $1.events.count })
        FileHandle.standardError.write(Data("demo: \(plan.uniqueEvents) events from \(configuration.devices) devices over \(configuration.days) days, true uplift \(configuration.upliftPoints) pp, posting to \(target.endpoint.host):\(target.endpoint.port)\n".utf8))
        let auth = "Basic " + Data((target.writeKey + ":").utf8).base64EncodedString()
        let client = try connect(to: target.endpoint)
        for manifest in plan.manifests {
            let response = try client.request("POST", "/v1/categories", headers: ["Authorization": auth, "Content-Type": "application/json"], body: manifest)
            guard response.status == 200 else { throw CLIError("POST /v1/categories answered \(response.status): \(response.text.prefix(300))") }
        }
        let totals = try post(plan.batches, to: target.endpoint, authorization: auth, concurrency: concurrency, progress: progress)
        progress.finish()
        print("posted \(totals.posted) events in \(plan.batches.count) batches: \(totals.accepted) accepted, \(totals.duplicates) duplicates (retries), \(totals.rejected) rejected")
        if let outcomes {
            let simulation = OutcomeSimulator(outcomes).simulate()
            let conversions = simulation.truths.count
            FileHandle.standardError.write(Data("demo: \(simulation.uniqueEvents) more events from \(outcomes.devices) devices that convert: \(conversions) conversions (true rates: \(Int(outcomes.directRate * 100)) % after a tap, \(Int(outcomes.influencedRate * 100)) % after a delivery without one)\n".utf8))
            let outcomePlan = simulation.plan()
            let posted = try post(outcomePlan, to: target.endpoint, authorization: auth, concurrency: concurrency)
            print("posted \(posted.posted) events with \(conversions) conversions in \(outcomePlan.batches.count) batches: \(posted.accepted) accepted, \(posted.duplicates) duplicates (retries), \(posted.rejected) rejected")
        }
        if let holdout {
            let simulation = HoldoutSimulator(holdout).simulate()
            FileHandle.standardError.write(Data("demo: \(simulation.uniqueEvents) more events: campaign \(holdout.campaign) assigns \(holdout.devices) devices at random, \(Int((holdout.holdoutShare * 100).rounded())) % held out (true conversion rates: \(percent(holdout.treatedRate)) treated, \(percent(holdout.heldOutRate)) held out, within \(holdout.window / HoldoutConfiguration.day) days)\n".utf8))
            let holdoutPlan = simulation.plan()
            let posted = try post(holdoutPlan, to: target.endpoint, authorization: auth, concurrency: concurrency)
            print("posted \(posted.posted) events of campaign \(holdout.campaign) (\(holdout.devices) devices assigned, and their conversions) in \(holdoutPlan.batches.count) batches: \(posted.accepted) accepted, \(posted.duplicates) duplicates (retries), \(posted.rejected) rejected")
        }

        guard let location = target.location else {
            print("the report: `tapwire report --app NAME --from \(plan.from.iso8601(fractionDigits: 0)) --to \(plan.to.iso8601(fractionDigits: 0))` against the collector's database")
            return 0
        }
        guard format != nil || htmlOut != nil else { return 0 }
        let connection = try location.connect()
        defer { connection.close() }
        let app = try AppStore().app(named: appName, on: connection)
        let report = try EngagementReportService().report(appName: app.name, scope: ReportScope(appId: app.appId, from: plan.from, to: plan.to),
                                                          on: connection)
        if let format { print(format.render(report), terminator: "") }
        if let htmlOut {
            try OutputFile.write(HTMLReportRenderer().render(report), to: htmlOut)
            FileHandle.standardError.write(Data("wrote \(htmlOut)\n".utf8))
        }
        return 0
    }

    /// The devices that also convert (docs/outcomes.md), over the demo's last days (at most 14).
    static func outcomeSimulation(_ args: inout Arguments, demo: DemoConfiguration) throws -> OutcomeConfiguration? {
        let devices = try args.int("outcome-devices") ?? 400
        guard (0...100_000).contains(devices) else { throw CLIError("--outcome-devices must be from 0 to 100,000") }
        guard devices > 0 else { return nil }
        var configuration = OutcomeConfiguration(end: demo.end)
        configuration.seed = demo.seed
        configuration.devices = devices
        configuration.days = min(demo.days, 14)
        configuration.upliftPoints = demo.upliftPoints
        configuration.mediaFailureRate = demo.mediaFailureRate
        return configuration
    }

    /// A campaign with a randomised holdout (docs/holdouts.md) over the demo's last days (at most 7).
    static func holdoutSimulation(_ args: inout Arguments, demo: DemoConfiguration) throws -> HoldoutConfiguration? {
        let devices = try args.int("holdout-devices") ?? 20_000
        guard (0...1_000_000).contains(devices) else { throw CLIError("--holdout-devices must be from 0 to 1,000,000") }
        var configuration = HoldoutConfiguration(end: demo.end)
        if let v = try args.double("holdout-effect") {
            guard (-5...95).contains(v) else { throw CLIError("--holdout-effect is in percentage points on a 5% base, from -5 to 95") }
            configuration.effectPoints = v
        }
        guard devices > 0 else { return nil }
        configuration.seed = demo.seed
        configuration.devices = devices
        configuration.days = min(demo.days, 7)
        configuration.retryFraction = demo.retryFraction
        return configuration
    }

    static func percent(_ rate: Double) -> String { String(format: "%.1f %%", rate * 100) }

    /// What to simulate, from the options; the period ends at the start of the current hour.
    static func simulation(_ args: inout Arguments) throws -> DemoConfiguration {
        var configuration = DemoConfiguration(end: Timestamp(microseconds: RollupDeltas.floor(Timestamp.now.microseconds,
                                                                                              RollupDeltas.microsecondsPerHour)))
        if let seed = try args.option("seed") {
            guard let value = UInt64(seed) else { throw CLIError("--seed must be a whole number ≥ 0") }
            configuration.seed = value
        }
        if let v = try args.int("devices") { guard v > 0 else { throw CLIError("--devices must be at least 1") }; configuration.devices = v }
        if let v = try args.int("notifications") {
            guard v >= 0, v <= 50_000_000 else { throw CLIError("--notifications must be from 0 to 50,000,000") }
            configuration.notifications = v
        }
        if let v = try args.int("days") { guard (1...365).contains(v) else { throw CLIError("--days must be from 1 to 365") }; configuration.days = v }
        if let text = try args.option("end") {
            guard let end = Timestamp(iso8601: text) else { throw CLIError("--end must be an ISO 8601 date or timestamp") }
            configuration.end = end
        }
        if let v = try args.double("uplift") {
            guard abs(v) <= 50 else { throw CLIError("--uplift is in percentage points, from -50 to 50") }
            configuration.upliftPoints = v
        }
        if let v = try args.double("media-failure") {
            guard (0...1).contains(v) else { throw CLIError("--media-failure must be from 0 to 1") }
            configuration.mediaFailureRate = v
        }
        if let v = try args.double("retry-fraction") {
            guard (0...1).contains(v) else { throw CLIError("--retry-fraction must be from 0 to 1") }
            configuration.retryFraction = v
        }
        return configuration
    }

    /// Where the demo posts: a running collector (--url, --write-key), or one started here on
    /// the database (the embedded cluster by default), whose report is then printed.
    struct Target {
        var endpoint: (host: String, port: Int)
        var writeKey: String
        var collector: Collector?
        var location: DatabaseLocation?

        static func resolve(_ args: inout Arguments, appName: String) throws -> Target {
            let url = try args.option("url")
            let writeKeyText = try args.option("write-key")
            if let url {
                guard let key = writeKeyText else { throw CLIError("--url needs --write-key (the app's write key)") }
                guard let parsed = parseURL(url) else { throw CLIError("--url must look like http://127.0.0.1:8080") }
                try args.finish()
                return Target(endpoint: parsed, writeKey: key)
            }
            let location = try DatabaseLocation.resolve(&args)
            try args.finish()
            let connection = try location.connect()
            defer { connection.close() }
            try DatabaseLocation.requireCurrentSchema(connection)
            let writeKey = try demoKey(app: appName, on: connection)
            var configuration = CollectorConfiguration(databaseURL: location.url)
            configuration.http.host = "127.0.0.1"
            configuration.http.port = 0
            configuration.rateLimitPerSecond = 0
            configuration.logLevel = .warning
            let collector = Collector(configuration: configuration, logger: Logger(label: "demo", minimumLevel: .warning))
            try collector.start()
            return Target(endpoint: ("127.0.0.1", collector.port), writeKey: writeKey, collector: collector, location: location)
        }
    }

    /// The demo app's write key: a fresh one each run (keys are stored hashed, so an existing
    /// app's key cannot be read back; older keys of the app keep working).
    static func demoKey(app: String, on connection: PostgresConnection) throws -> String {
        if (try? AppStore().app(named: app, on: connection)) != nil {
            return try AppStore().rotateKey(appNamed: app, kind: .write, graceSeconds: AppStore.defaultGraceSeconds, on: connection).text
        }
        return try AppStore().createApp(named: app, on: connection).writeKey.text
    }

    /// A keep-alive connection to the collector (the tools' one HTTP client), its failures worded
    /// for the demo's user. Reads wait up to 5 minutes: a busy collector answers only after COMMIT.
    static func connect(to endpoint: (host: String, port: Int)) throws -> HTTPClientConnection {
        do {
            return try HTTPClientConnection(host: endpoint.host, port: endpoint.port, timeout: 300)
        } catch where error.code == .badAddress {
            throw CLIError("the demo posts to an IPv4 address such as 127.0.0.1, not \(endpoint.host)")
        } catch {
            throw CLIError("cannot connect to \(endpoint.host):\(endpoint.port): is the collector running?")
        }
    }

    static func parseURL(_ url: String) -> (host: String, port: Int)? {
        guard url.hasPrefix("http://") else { return nil }
        let rest = url.dropFirst(7).split(separator: "/", maxSplits: 1).first.map(String.init) ?? ""
        let parts = rest.split(separator: ":")
        guard parts.count == 2, let port = Int(parts[1]), (1...65535).contains(port) else { return nil }
        return (String(parts[0]), port)
    }

    struct Totals: Sendable { var posted = 0, accepted = 0, duplicates = 0, rejected = 0 }

    /// Posts a further plan's batches (the converting devices', the holdout's) with their own progress.
    static func post(_ plan: DemoPlan, to endpoint: (host: String, port: Int), authorization: String, concurrency: Int) throws -> Totals {
        let progress = Progress(total: plan.batches.reduce(0) { $0 + $1.events.count })
        defer { progress.finish() }
        return try post(plan.batches, to: endpoint, authorization: authorization, concurrency: concurrency, progress: progress)
    }

    /// Posts batches over `concurrency` keep-alive connections; 429 and 503 are retried after
    /// Retry-After, as the SDK does, so nothing is lost.
    static func post(_ batches: [DemoBatch], to endpoint: (host: String, port: Int), authorization: String, concurrency: Int,
                     progress: Progress) throws -> Totals {
        let next = Mutex(0)
        let totals = Mutex(Totals())
        let failure = Mutex<String?>(nil)
        let group = DispatchGroup()
        for _ in 0..<concurrency {
            group.enter()
            Thread.detachNewThread {
                defer { group.leave() }
                do {
                    var client = try connect(to: endpoint)
                    while failure.withLock({ $0 == nil }) {
                        let index = next.withLock { value -> Int in defer { value += 1 }; return value }
                        guard index < batches.count else { return }
                        var attempts = 0
                        while true {
                            let response: HTTPClientResponse
                            do {
                                response = try client.request("POST", "/v1/batch", headers: ["Authorization": authorization, "Content-Type": "application/json"],
                                                              body: batches[index].body(sentAt: .now))
                            } catch {
                                attempts += 1
                                guard attempts < 5 else { throw error }
                                client = try connect(to: endpoint)
                                continue
                            }
                            if response.status == 429 || response.status == 503 {
                                attempts += 1
                                guard attempts < 50 else { throw CLIError("the collector kept answering \(response.status)") }
                                Thread.sleep(forTimeInterval: Double(response.headers["retry-after"].flatMap { Int($0) } ?? 1))
                                continue
                            }
                            guard response.status == 200, let json = try? JSONParser().parse(response.body) else {
                                throw CLIError("POST /v1/batch answered \(response.status): \(response.text.prefix(300))")
                            }
                            let accepted = Int(json["accepted"]?.numberValue?.integer ?? 0)
                            let duplicates = Int(json["duplicates"]?.numberValue?.integer ?? 0)
                            let rejected = json["rejected"]?.arrayValue?.count ?? 0
                            totals.withLock {
                                $0.posted += batches[index].events.count
                                $0.accepted += accepted
                                $0.duplicates += duplicates
                                $0.rejected += rejected
                            }
                            progress.advance(batches[index].events.count)
                            break
                        }
                    }
                } catch {
                    failure.withLock { $0 = $0 ?? "\(error)" }
                }
            }
        }
        group.wait()
        if let message = failure.withLock({ $0 }) { throw CLIError("demo: \(message)") }
        return totals.withLock { $0 }
    }

    /// A progress bar on a terminal; a plain line every 10% otherwise (CI logs, pipes).
    final class Progress: Sendable {
        private let state = Mutex<(done: Int, lastShown: Int)>((0, -1))
        let total: Int
        let isTTY = isatty(STDERR_FILENO) == 1

        init(total: Int) { self.total = max(1, total) }

        func advance(_ count: Int) {
            let line: String? = state.withLock { s in
                s.done += count
                let percent = min(100, s.done * 100 / total)
                if isTTY {
                    guard percent != s.lastShown else { return nil }
                    s.lastShown = percent
                    let filled = percent * 40 / 100
                    return "\r[" + String(repeating: "#", count: filled) + String(repeating: ".", count: 40 - filled) + "] \(percent)% \(s.done)/\(total) events"
                }
                let decile = percent / 10
                guard decile != s.lastShown else { return nil }
                s.lastShown = decile
                return "demo: posted \(s.done) of \(total) events (\(decile * 10)%)\n"
            }
            if let line { FileHandle.standardError.write(Data(line.utf8)) }
        }

        func finish() { if isTTY { FileHandle.standardError.write(Data("\n".utf8)) } }
    }
}
