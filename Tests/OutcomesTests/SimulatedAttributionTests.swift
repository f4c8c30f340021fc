import Foundation
import Testing
import TapwireCore
import TapwireDemo
import TapwireStatistics
import TapwireStore
import TapwireTestSupport

/// A simulated app's batches through the real collector over loopback HTTP, late, out of order
/// and retried, with folds at random points between them: the stored credits and every
/// conversion table equal the Python oracle's recomputation from the stored events, the
/// simulation's truth where it is unambiguous, and the same tables from another posting order.
@Suite("Attribution of a simulated app")
struct SimulatedAttributionTests {
    static func configuration() -> OutcomeConfiguration {
        var c = OutcomeConfiguration(end: Timestamp(iso8601: "2026-11-16T00:00:00Z")!)
        c.seed = 35
        c.devices = 150
        c.days = 5
        c.directRate = 0.4
        c.influencedRate = 0.08
        c.organicPerDeviceDay = 0.3
        // Values to the last bit of a double, not cents: the 15 significant digits PostgreSQL
        // keeps of a float8 (docs/outcomes.md) are what both sides must sum.
        c.roundValuesToCents = false
        return c
    }

    /// Dense: thirty notifications a device a day, taps within half an hour, every time a whole
    /// minute, so taps, deliveries and conversions of a device often share a time and compete.
    static func denseConfiguration() -> OutcomeConfiguration {
        var c = configuration()
        c.seed = 36
        c.devices = 25
        c.days = 2
        c.notificationsPerDeviceDay = 30
        c.timeResolution = 60_000_000
        c.latencyMax = 30 * 60_000_000
        c.directRate = 0.5
        c.influencedRate = 0.2
        c.organicPerDeviceDay = 3
        c.namedShare = 0.7
        return c
    }

    @Test func creditsAndRollupsEqualTheOracleTheTruthAndAnotherOrder() throws {
        try Self.check(Self.configuration(), unambiguousPerKind: 10)
    }

    @Test func denseTiedEventsEqualTheOracleAndAnotherOrder() throws {
        try Self.check(Self.denseConfiguration(), unambiguousPerKind: 1)
    }

    static func check(_ configuration: OutcomeConfiguration, unambiguousPerKind: Int) throws {
        let simulation = OutcomeSimulator(configuration).simulate()
        let plan = simulation.plan()
        let collector = try TestCollector.start { $0.rateLimitPerSecond = 0 }
        defer { collector.stop() }
        var tables: [AttributionTables] = []
        var early = 0, firsts: [[EventID]] = []
        for orderSeed: UInt64 in [1, 2] {
            let app = try collector.database.createApp()
            var rng = SeededGenerator(seed: orderSeed)
            let order = plan.batches.shuffled(using: &rng)
            early = Self.conversionsBeforeTheirCause(order, simulation.truths)
            firsts.append(order.map { $0.events[0].eventId })
            let posted = try OutcomePosting.post(order, to: app, collector: collector) { _ in Sampling.unit(&rng) < 0.05 }
            #expect(posted.accepted == plan.uniqueEvents)
            #expect(posted.duplicates > 0, "the plan retries some batches")
            let stored = try AttributionTables.stored(collector.database, app: app.appId)
            let oracle = try AttributionTables.oracle(collector.database, app: app.appId)
            let differences = stored.differences(from: oracle, ("the database", "the oracle"))
            #expect(differences.isEmpty, "order \(orderSeed):\n\(differences.joined(separator: "\n"))")
            #expect(stored.tables["credits"]?.count == simulation.truths.count)
            #expect(stored.zeroRows.values.allSatisfy { $0 == 0 }, "rows whose credits moved away remain: \(stored.zeroRows)")
            try Self.expectUpliftSumsKept(collector.database, app: app.appId)
            print("seed \(configuration.seed), order \(orderSeed): \(plan.batches.count) batches, \(plan.uniqueEvents) events, \(simulation.truths.count) conversions;",
                  "\(early) posted before their tap or delivery")
            tables.append(stored)
        }
        #expect(early > 0, "some conversions should arrive before what caused them")
        #expect(firsts[0] != firsts[1], "two posting orders")
        // Taps and deliveries of one device at one time: the ties the rule breaks by event id.
        let ties = simulation.devices.reduce(0) { count, device in
            let touches = device.events.filter { $0.type == .delivered || ($0.type == .response && $0.actionIdentifier != SystemAction.dismiss) }
            return count + Dictionary(grouping: touches, by: \.timestamp).values.filter { $0.count > 1 }.count
        }
        print("seed \(configuration.seed): \(ties) times shared by two or more taps or deliveries of a device")
        #expect(configuration.timeResolution < 60_000_000 || ties > 20, "the dense simulation should tie")
        let (a, b) = (tables[0], tables[1])
        let byOrder = a.differences(from: b, ("order 1", "order 2"))
        #expect(byOrder.isEmpty, "\(byOrder.joined(separator: "\n"))")
        try Self.expectTruth(simulation.truths, a.creditsByEvent, unambiguousPerKind: unambiguousPerKind)
    }

    /// Rich vs text-only on conversion, kept by the folds and attribution as the batches came
    /// (migration 0180), equals its recomputation from the strata, with nothing left queued; and
    /// `tapwire rollups rebuild` of every day keeps it so, and keeps it what it was.
    static func expectUpliftSumsKept(_ database: TestDatabase, app: Int64) throws {
        let kept = try ConversionUpliftSums.stored(database, app: app)
        let differences = kept.differences(from: try ConversionUpliftSums.recomputed(database, app: app), ("kept", "recomputed"))
        #expect(differences.isEmpty, "\(differences.joined(separator: "\n"))")
        #expect(kept.queued == 0 && !kept.base.isEmpty && !kept.names.isEmpty, "base \(kept.base.count), names \(kept.names.count), queued \(kept.queued)")
        let connection = try database.connect()
        defer { connection.close() }
        let range = try #require(try RollupStore().eventHours(appId: app, on: connection))
        try RollupStore().rebuild(appId: app, from: range.from, to: range.to, on: connection)
        let rebuilt = try ConversionUpliftSums.stored(database, app: app)
        let afterRebuild = rebuilt.differences(from: kept, ("rebuilt", "kept"))
        #expect(afterRebuild.isEmpty, "\(afterRebuild.joined(separator: "\n"))")
    }

    /// Where no other tap or delivery competes, the credit is the conversion's cause: direct to the
    /// tapped notification, influenced by the delivered one, unattributed without one.
    static func expectTruth(_ truths: [ConversionTruth], _ credits: [String: (kind: Int, key: String?)], unambiguousPerKind: Int) throws {
        var agreed = [0, 0, 0], ambiguous = [0, 0, 0], ruled: [String: Int] = [:]
        for truth in truths {
            let credit = try #require(credits[truth.eventId.description], "no credit for \(truth.eventId)")
            if truth.unambiguous {
                #expect(credit.kind == truth.kind && credit.key == truth.notificationKey,
                        "\(truth.eventId) at \(truth.time): credited \(credit.kind) \(credit.key ?? "∅"), caused \(truth.cause) \(truth.notificationKey ?? "∅")")
                agreed[truth.kind - 1] += 1
            } else {
                ambiguous[truth.kind - 1] += 1
                let same = credit.key == truth.notificationKey ? "same notification" : "another notification"
                ruled["caused \(truth.kind), credited \(credit.kind) (\(credit.kind == 3 ? "none" : same))", default: 0] += 1
            }
        }
        print("truth: unambiguous direct/influenced/unattributed \(agreed) all equal; ambiguous \(ambiguous): \(ruled.sorted { $0.key < $1.key })")
        #expect(agreed.allSatisfy { $0 >= unambiguousPerKind }, "the simulation should give each kind unambiguous cases: \(agreed)")
    }

    /// How many caused conversions are posted (first) before the tap or delivery that caused them.
    static func conversionsBeforeTheirCause(_ order: [DemoBatch], _ truths: [ConversionTruth]) -> Int {
        var position: [EventID: Int] = [:]
        for (i, batch) in order.enumerated() {
            for event in batch.events where position[event.eventId] == nil { position[event.eventId] = i }
        }
        return truths.filter { truth in
            switch truth.cause {
            case .engagedResponse(let id), .delivery(let id): position[truth.eventId]! < position[id]!
            case .organic: false
            }
        }.count
    }
}
