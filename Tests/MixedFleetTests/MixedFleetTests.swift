import Foundation
import Synchronization
import Testing
import TapwireCore
import TapwireStore
import TapwireTestSupport

/// A fleet upgraded one collector at a time: the previous release's collector (built from git,
/// `PreviousRelease`, TAPWIRE_PREVIOUS_REVISION) keeps running while this release migrates the
/// database and its collectors join behind the same load balancer. Every event must be stored
/// once, and every report and finding either collector serves must be exact, with nobody running
/// a rebuild: each is compared with an oracle of its own version, a database of its own given the
/// same batches and served by that version alone. The rollups must equal those one PostgreSQL
/// and this release alone write.
///
/// To hold a release that changes the rollups, run it against the release before it:
/// `TAPWIRE_PREVIOUS_REVISION=<commit> swift test --filter MixedFleetTests` (docs/deployment.md,
/// "Upgrading one collector at a time").
@Suite(.serialized) struct MixedFleetTests {
    /// The answers a collector gives to the same report and findings requests, by request:
    /// the HTTP status and the body (JSON without its `generatedAt`, which is the clock's).
    static func answers(port: Int, demo: CreatedApp, release: CreatedApp, s: FleetScenario, end: Timestamp,
                        live: Timestamp) throws -> [String: (Int, String)] {
        let client = HTTPTestClient(port: port)
        let from = s.demoFrom.description, to = s.demoTo.description
        let firstDay = String(from.prefix(10)), lastDay = String(s.demoTo.adding(seconds: -1).description.prefix(10))
        let edges = "from=\(s.demoFrom.adding(seconds: 86_400 + 1_020).description)&to=\(s.demoTo.adding(seconds: -3_893).description)"
        let requests: [(String, CreatedApp)] = [
            ("/v1/reports/engagement?format=json&from=\(from)&to=\(to)", demo),
            ("/v1/reports/engagement?format=json&from=\(firstDay)&to=\(lastDay)&tz=Asia/Kolkata", demo),
            ("/v1/reports/engagement?format=json&\(edges)&by=campaign", demo),
            ("/v1/reports/engagement?format=csv&from=\(from)&to=\(to)&by=version", demo),
            ("/v1/reports/engagement?format=json&from=\(firstDay)&to=\(lastDay)&tz=America/St_Johns&platform=iOS", demo),
            ("/v1/reports/engagement?format=json&from=\(s.release.adding(seconds: -86_400).description)&to=\(end.description)", release),
            ("/v1/findings?at=\(s.release.adding(seconds: 86_400).description)&minSeverity=info", release),
            ("/v1/findings?at=\(end.description)&minSeverity=info", release),
            // The live traffic after the migration, to an edge mid-hour on a quarter hour: read
            // from the quarter-hour grain, which counts it only if every collector wrote it.
            ("/v1/reports/engagement?format=json&from=\(live.adding(seconds: -3_600).description)&to=\(live.adding(seconds: 1_800).description)", release),
            ("/v1/reports/engagement?format=json&from=\(live.adding(seconds: -3_600).description)&to=\(live.adding(seconds: 3_600).description)&tz=Asia/Kolkata", release),
        ]
        var out: [String: (Int, String)] = [:]
        for (path, app) in requests {
            let response = try client.get(path + "&app=\(app.name)", key: app.readKey.text)
            var body = response.text
            if case .object(let object)? = response.json {
                let kept = JSONObject(members: object.members.filter { $0.key != "generatedAt" })
                body = String(decoding: JSONValue.object(kept).serializedBytes(), as: UTF8.self)
            }
            out[path + " (\(app.name))"] = (response.status, body)
        }
        return out
    }

    /// Posts `body` to the collectors in turn, starting with `first`, until one stores it (200);
    /// then once more to the next one, a retry. Returns the events accepted and the statuses
    /// that were not 200 (a collector that refused the batch stored none of it).
    static func post(_ body: [UInt8], key: String, ports: [Int], first: Int) throws -> (accepted: Int, refused: [Int]) {
        var accepted = 0, refused: [Int] = []
        var index = first
        var stored = false
        for _ in 0..<(2 * ports.count + 2) {
            let response = try HTTPTestClient(port: ports[index % ports.count]).post("/v1/batch", key: key, json: body)
            index += 1
            guard response.status == 200 else { refused.append(response.status); continue }
            accepted += Int(response.json?["accepted"]?.numberValue?.integer ?? -1_000_000)
            if stored { break }
            stored = true
        }
        #expect(stored, "no collector stored the batch: \(refused)")
        return (accepted, refused)
    }

    /// The scenario's manifests and batches of both apps, to collectors at `ports`, batch i
    /// first to collector i mod n.
    static func deliver(_ s: FleetScenario, apps: (demo: CreatedApp, release: CreatedApp), ports: [Int],
                        batches: (demo: Range<Int>, release: Range<Int>)? = nil, live: [[UInt8]] = []) throws -> (accepted: Int, refused: [Int]) {
        var accepted = 0, refused: [Int] = []
        for (app, manifests) in [(apps.demo, s.demoManifests), (apps.release, s.releaseManifests)] where batches == nil || batches!.demo.lowerBound == 0 {
            for manifest in manifests {
                for port in ports {
                    let response = try HTTPTestClient(port: port).post("/v1/categories", key: app.writeKey.text, json: manifest)
                    if response.status != 200 { refused.append(response.status) }
                }
            }
        }
        let demoRange = batches?.demo ?? 0..<s.demoBatches.count, releaseRange = batches?.release ?? 0..<s.releaseBatches.count
        for (i, body) in s.demoBatches.enumerated() where demoRange.contains(i) {
            let r = try post(body, key: apps.demo.writeKey.text, ports: ports, first: i)
            accepted += r.accepted; refused += r.refused
        }
        for (i, body) in s.releaseBatches.enumerated() where releaseRange.contains(i) {
            let r = try post(body, key: apps.release.writeKey.text, ports: ports, first: i)
            accepted += r.accepted; refused += r.refused
        }
        for (i, body) in live.enumerated() {
            let r = try post(body, key: apps.release.writeKey.text, ports: ports, first: i)
            accepted += r.accepted; refused += r.refused
        }
        return (accepted, refused)
    }

    /// Traffic of the release app from `live` (a quarter hour after the migration, so after the
    /// instant from which migration 0100 counts the quarter-hour grain complete) for 50 minutes:
    /// what a fleet takes while it is being upgraded. Events in the near future are stored as
    /// sent (up to 24 h ahead), so the times are the same on every side.
    static func liveBatches(_ live: Timestamp) -> (bodies: [[UInt8]], events: Int) {
        let plan = TrafficPlan(category: "invite", version: "1.1", from: live, hours: 1, deliveriesPerHour: 400,
                               rates: [SystemAction.open: 0.2, "accept": 0.1, "decline": 0.05])
        var bodies: [[UInt8]] = [], events = 0
        for group in ReleaseTraffic.events([plan], seed: 21) {
            let context = JSONValue.object([("appVersion", .string(group.version)), ("platform", .string(group.platform))])
            events += group.events.count
            for start in stride(from: 0, to: group.events.count, by: 60) {
                bodies.append(FleetScenario.body(context, Array(group.events[start..<min(group.events.count, start + 60)])))
            }
        }
        return (bodies, events)
    }

    /// A database the previous release migrated, with the two apps (made by this release's
    /// store code, which the previous schema takes as it is).
    static func previousDatabase(_ previous: String) throws -> (TestDatabase, (demo: CreatedApp, release: CreatedApp)) {
        let name = try TestPostgres.blankDatabase(prefix: "fleet")
        let database = TestDatabase(name: name, url: try TestPostgres.url(database: name))
        let migrated = try TapwireBinary.run(["migrate", "--database-url", database.url], binary: previous)
        guard migrated.status == 0 else { throw TestClientError(message: "the previous release's migrate failed: \(migrated.output)") }
        return (database, (try database.createApp("fleet-demo"), try database.createApp("fleet-release")))
    }

    /// What this release alone answers, and what the previous release alone answers, given the
    /// scenario: the two oracles.
    static func oracles(_ previous: String, s: FleetScenario, end: Timestamp, live: Timestamp) throws
        -> (new: [String: (Int, String)], old: [String: (Int, String)], newDatabase: TestDatabase, newApps: (demo: CreatedApp, release: CreatedApp)) {
        let newDatabase = try TestDatabase.create()
        let newApps = (demo: try newDatabase.createApp("fleet-demo"), release: try newDatabase.createApp("fleet-release"))
        let newCollector = try TestCollector(database: newDatabase) { $0.rateLimitPerSecond = 0 }
        defer { newCollector.stop() }
        let traffic = liveBatches(live)
        #expect(try deliver(s, apps: newApps, ports: [newCollector.port], live: traffic.bodies).accepted
                == s.demoEvents + s.releaseEvents + traffic.events)
        let new = try answers(port: newCollector.port, demo: newApps.demo, release: newApps.release, s: s, end: end, live: live)

        let (oldDatabase, oldApps) = try previousDatabase(previous)
        let oldCollector = try TapwireBinary.serve(databaseURL: oldDatabase.url, extraArguments: ["--rate-limit", "0"], binary: previous)
        defer { _ = oldCollector.interrupt() }
        #expect(try deliver(s, apps: oldApps, ports: [oldCollector.port], live: traffic.bodies).accepted
                == s.demoEvents + s.releaseEvents + traffic.events)
        let old = try answers(port: oldCollector.port, demo: oldApps.demo, release: oldApps.release, s: s, end: end, live: live)
        return (new, old, newDatabase, newApps)
    }

    /// What both tests share: the previous release's binary, one scenario and its two oracles.
    struct Fixture: Sendable {
        var previous: String
        var s: FleetScenario
        var end: Timestamp
        var live: Timestamp
        var traffic: [[UInt8]]
        var liveEvents: Int
        var new: [String: (Int, String)]
        var old: [String: (Int, String)]
        var newDatabase: TestDatabase
        var newApps: (demo: CreatedApp, release: CreatedApp)
    }

    private static let shared = Mutex<Fixture?>(nil)

    /// The fixture, made by the first test that asks (the suite runs its tests one at a time).
    static func fixture() throws -> Fixture {
        try shared.withLock { cached in
            if let cached { return cached }
            let previous = try PreviousRelease.binary()
            let now = Timestamp.now
            let s = FleetScenario(now: now, demoNotifications: 3_000, releaseDeliveriesPerHour: 40)
            let end = Timestamp(microseconds: RollupDeltas.floor(now.microseconds, RollupDeltas.microsecondsPerHour))
            // A quarter hour after the one the migration runs in: after the instant from which
            // migration 0100 counts the quarter-hour grain complete.
            let live = Timestamp(microseconds: RollupDeltas.floor(now.microseconds, RollupDeltas.microsecondsPerQuarterHour)
                                 + 2 * RollupDeltas.microsecondsPerQuarterHour)
            let traffic = liveBatches(live)
            let oracles = try Self.oracles(previous, s: s, end: end, live: live)
            let made = Fixture(previous: previous, s: s, end: end, live: live, traffic: traffic.bodies, liveEvents: traffic.events,
                               new: oracles.new, old: oracles.old, newDatabase: oracles.newDatabase, newApps: oracles.newApps)
            cached = made
            return made
        }
    }

    /// Each answer of `got` equals the oracle's; returns the requests answered with an error.
    @discardableResult
    static func expectExact(_ got: [String: (Int, String)], _ oracle: [String: (Int, String)], who: String, failuresAllowed: Bool = false) -> [String] {
        var failed: [String] = []
        for (request, answer) in got.sorted(by: { $0.key < $1.key }) {
            guard answer.0 == 200 else {
                failed.append("\(answer.0) \(request)")
                #expect(failuresAllowed, "\(who) answered \(answer.0) to \(request): \(answer.1.prefix(300))")
                continue
            }
            #expect(oracle[request]?.0 == 200, "the oracle of \(who) answered \(oracle[request]?.0 ?? 0) to \(request)")
            #expect(answer.1 == oracle[request]?.1, "\(who) differs from its oracle on \(request)")
        }
        return failed
    }

    static func expectStoredOnce(_ database: TestDatabase, apps: (demo: CreatedApp, release: CreatedApp), s: FleetScenario,
                                 liveEvents: Int) throws {
        for (app, events) in [(apps.demo, s.demoEvents), (apps.release, s.releaseEvents + liveEvents)] {
            #expect(try database.query("SELECT count(*) FROM events WHERE app_id = $1::bigint", [String(app.appId)]).scalar == String(events))
            #expect(try database.query("SELECT count(*) FROM event_ids WHERE app_id = $1::bigint", [String(app.appId)]).scalar == String(events))
        }
    }

    static func expectRollupsOfThisRelease(_ database: TestDatabase, apps: (demo: CreatedApp, release: CreatedApp),
                                           oracle: TestDatabase, oracleApps: (demo: CreatedApp, release: CreatedApp)) throws {
        let mixed = try database.connect(), alone = try oracle.connect()
        defer { mixed.close(); alone.close() }
        try RollupStore().fold(on: mixed)
        try RollupStore().fold(on: alone)
        #expect(try RollupSnapshot.rows(appId: apps.demo.appId, on: mixed) == RollupSnapshot.rows(appId: oracleApps.demo.appId, on: alone))
        #expect(try RollupSnapshot.rows(appId: apps.release.appId, on: mixed) == RollupSnapshot.rows(appId: oracleApps.release.appId, on: alone))
    }

    /// On PostgreSQL: the previous release's collector takes the first half of the traffic alone,
    /// keeps running while this release migrates, and then shares the rest with this release's
    /// collector, each batch retried on the other.
    @Test func aFleetUpgradedOneCollectorAtATimeOnPostgreSQL() throws {
        let f = try Self.fixture()
        let (previous, s, end, live, oracles) = (f.previous, f.s, f.end, f.live, (new: f.new, old: f.old, newDatabase: f.newDatabase, newApps: f.newApps))
        let traffic = (bodies: f.traffic, events: f.liveEvents)

        let (database, apps) = try Self.previousDatabase(previous)
        let old = try TapwireBinary.serve(databaseURL: database.url, extraArguments: ["--rate-limit", "0"], binary: previous)
        defer { _ = old.interrupt() }
        let half = (demo: 0..<(s.demoBatches.count / 2), release: 0..<(s.releaseBatches.count / 2))
        var accepted = try Self.deliver(s, apps: apps, ports: [old.port], batches: half).accepted

        // The upgrade: this release migrates while the previous collector runs, then its own
        // collector joins.
        let connection = try database.connect()
        defer { connection.close() }
        let applied = try Migrator().migrate(connection)
        print("mixed fleet (PostgreSQL): previous release \(PreviousRelease.revision); this release applied \(applied.map(\.name))")
        let new = try TestCollector(database: database) { $0.rateLimitPerSecond = 0 }
        defer { new.stop() }
        let rest = (demo: half.demo.upperBound..<s.demoBatches.count, release: half.release.upperBound..<s.releaseBatches.count)
        let shared = try Self.deliver(s, apps: apps, ports: [old.port, new.port], batches: rest, live: traffic.bodies)
        accepted += shared.accepted
        // Since migration 0150 the previous release refuses batches with 503 (its deltas would
        // lack the OS), and since 0161 too (it would not queue their attribution: the default
        // of rollup_delta_batches.attribution_queued raises 57P03); each is then stored by this
        // release's collector, once.
        #expect(shared.refused.allSatisfy { $0 == 503 }, "refused: \(shared.refused)")
        print("mixed fleet (PostgreSQL): the previous release refused \(shared.refused.count) posts with 503, each stored by the other collector")
        #expect(accepted == s.demoEvents + s.releaseEvents + traffic.events)
        try Self.expectStoredOnce(database, apps: apps, s: s, liveEvents: traffic.events)

        Self.expectExact(try Self.answers(port: new.port, demo: apps.demo, release: apps.release, s: s, end: end, live: live), oracles.new,
                         who: "this release's collector")
        // A previous release whose fold writes tables a migration of this one replaced (0150
        // replaced the report's rollups) cannot fold: it refuses its reads with 503 and
        // Retry-After, never a wrong figure (docs/deployment.md, "Upgrading a fleet across
        // migrations 0150 and 0161"). Whatever it does answer must equal its oracle.
        let refusedReads = Self.expectExact(try Self.answers(port: old.port, demo: apps.demo, release: apps.release, s: s, end: end, live: live),
                                            oracles.old, who: "the previous release's collector", failuresAllowed: true)
        #expect(refusedReads.allSatisfy { $0.hasPrefix("503 ") }, "the previous release's refusals: \(refusedReads)")
        print("mixed fleet (PostgreSQL): the previous release refused \(refusedReads.count) of 10 reads with 503")
        try Self.expectRollupsOfThisRelease(database, apps: apps, oracle: oracles.newDatabase, oracleApps: oracles.newApps)
    }

    /// On Citus the previous release joins a cluster this release migrated (its own migrate never
    /// got past 0030 on Citus, docs/deployment.md), behind the same balancer. Its answers must
    /// never be wrong; those it cannot give on Citus (queries an older release wrote before it
    /// ran on Citus) are listed, and the balancer's retry takes the batch to another collector.
    @Test func aFleetUpgradedOneCollectorAtATimeOnCitus() throws {
        let cluster: CitusCluster
        do {
            cluster = try CitusCluster.shared()
        } catch let unavailable as CitusCluster.Unavailable {
            try Test.cancel(Comment(rawValue: unavailable.message))
        }
        let f = try Self.fixture()
        let (previous, s, end, live, oracles) = (f.previous, f.s, f.end, f.live, (new: f.new, old: f.old, newDatabase: f.newDatabase, newApps: f.newApps))
        let traffic = (bodies: f.traffic, events: f.liveEvents)

        let database = try cluster.migratedDatabase(prefix: "fleet")
        let apps = (demo: try database.createApp("fleet-demo"), release: try database.createApp("fleet-release"))
        let old = try TapwireBinary.serve(databaseURL: database.url, extraArguments: ["--rate-limit", "0"], binary: previous)
        defer { _ = old.interrupt() }
        let new = try TestCollector(database: database) { $0.rateLimitPerSecond = 0 }
        defer { new.stop() }
        let shared = try Self.deliver(s, apps: apps, ports: [old.port, new.port], live: traffic.bodies)
        #expect(shared.accepted == s.demoEvents + s.releaseEvents + traffic.events)
        #expect(shared.refused.allSatisfy { $0 == 500 || $0 == 503 }, "refused: \(shared.refused)")
        try Self.expectStoredOnce(database, apps: apps, s: s, liveEvents: traffic.events)

        Self.expectExact(try Self.answers(port: new.port, demo: apps.demo, release: apps.release, s: s, end: end, live: live), oracles.new,
                         who: "this release's collector")
        let failed = Self.expectExact(try Self.answers(port: old.port, demo: apps.demo, release: apps.release, s: s, end: end, live: live), oracles.old,
                                      who: "the previous release's collector", failuresAllowed: true)
        print("mixed fleet (Citus): previous release \(PreviousRelease.revision) refused \(shared.refused.count) posts "
              + "(\(Set(shared.refused).sorted())), each stored by the other collector; it could not answer \(failed.count) of 10 reads: \(failed)")
        try Self.expectRollupsOfThisRelease(database, apps: apps, oracle: oracles.newDatabase, oracleApps: oracles.newApps)
    }
}
