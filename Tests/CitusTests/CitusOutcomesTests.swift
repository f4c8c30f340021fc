import Foundation
import Testing
import TapwireCore
import TapwireStatistics
import TapwireServer
import TapwireStore
import TapwireTestSupport

/// Attribution on three nodes (docs/outcomes.md): the fold's tapwire_attribute_pending (its
/// temporary tables joined with distributed ones, its DELETE … USING a CTE), a change of windows
/// (tapwire_set_attribution_windows) and forgetting a device (tapwire_forget_device) give what
/// one PostgreSQL gives for the same batches, and a forgotten install id is in no table.
@Suite struct CitusOutcomesTests {
    struct Side {
        let database: TestDatabase
        let collector: TestCollector
        let app: CreatedApp
        let admin: APIKey

        init(_ database: TestDatabase) throws {
            self.database = database
            collector = try TestCollector(database: database) { $0.rateLimitPerSecond = 0; $0.rollupFoldMilliseconds = 3_600_000; $0.findingsMonitor = false }
            app = try database.createApp("outcomes")
            let connection = try database.connect()
            defer { connection.close() }
            admin = try AppStore().rotateKey(appNamed: app.name, kind: .admin, graceSeconds: 0, on: connection)
        }

        func snapshot() throws -> [[String?]] {
            let connection = try database.connect()
            defer { connection.close() }
            return try AttributionSnapshot.rows(appId: app.appId, on: connection)
        }
    }

    @Test func attributionWindowsAndForgettingOnCitusEqualOnePostgreSQL() throws {
        let cluster = try citus()
        let sides = [try Side(try cluster.migratedDatabase(prefix: "outcomes")), try Side(try TestDatabase.create())]
        defer { sides.forEach { $0.collector.stop() } }
        var rng = SeededGenerator(seed: 35_005)
        let batches = ConversionTraffic.batches(&rng, start: Timestamp.now.adding(seconds: -3 * 86_400))
        for side in sides {
            for body in batches + batches.prefix(3) { _ = try ReportFixtures.post(side.collector.client(), key: side.app.writeKey.text, body) }
            let connection = try side.database.connect()
            defer { connection.close() }
            try RollupStore().fold(on: connection)
        }
        let folded = try sides[1].snapshot()
        #expect(folded.count > 100)
        #expect(try sides[0].snapshot() == folded, "the fold's attribution differs on Citus")

        for side in sides {
            let connection = try side.database.connect()
            defer { connection.close() }
            let recomputed = try AttributionStore().setWindows(appId: side.app.appId, directSeconds: 600, influenceSeconds: 7200, on: connection)
            #expect(recomputed.conversions > 100)
        }
        #expect(try sides[0].snapshot() == (try sides[1].snapshot()), "new windows give other credits on Citus")

        let body = JSONValue.object([("deviceId", .string(ConversionTraffic.devices[1]))]).serializedBytes()
        var removed: [String] = []
        for side in sides {
            let response = try side.collector.client().post("/v1/devices/forget", key: side.admin.text, json: body)
            #expect(response.status == 200, "\(response.text)")
            removed.append(response.json?["removed"]?.serialized() ?? "")
            let connection = try side.database.connect()
            defer { connection.close() }
            #expect(try InstallIdScan.holders(of: ConversionTraffic.devices[1], on: connection) == [])
        }
        #expect(removed[0] == removed[1])
        #expect(try sides[0].snapshot() == (try sides[1].snapshot()))
    }
}
