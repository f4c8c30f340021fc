import Foundation
import Testing
import TapwireCore
import TapwireStore
import TapwireTestSupport

/// The network between the collector and its database cut under load (the link to a network
/// namespace of the test's own taken down), then restored: nothing acknowledged is lost or
/// stored twice, and the same collector stores again once the network is back.
@Suite(.serialized) struct NetworkCutTests {
    @Test(.enabled(if: PostgresBehindLink.isPossible, "needs root and iproute2 for a network namespace"))
    func aNetworkCutLosesNothingAcknowledged() throws {
        let database = try PostgresBehindLink.start()
        defer { database.stop() }
        let admin = try PostgresConnection(url: database.url(database: "postgres"))
        try admin.query("CREATE DATABASE tapwire")
        admin.close()
        let url = database.url(database: "tapwire")
        let migrated = try TapwireBinary.run(["migrate", "--database-url", url])
        try #require(migrated.status == 0, "\(migrated.output)")
        let created = try TapwireBinary.run(["apps", "create", "shop", "--format", "json", "--database-url", url])
        try #require(created.status == 0, "\(created.output)")
        let writeKey = try #require(try JSONParser().parse(created.output.trimmingCharacters(in: .whitespacesAndNewlines))["writeKey"]?.stringValue)

        let collector = try TapwireBinary.serve(databaseURL: url)
        defer { _ = collector.interrupt() }
        let load = AcknowledgedLoad(ports: [collector.port], writeKey: writeKey)
        #expect(eventually(timeout: 60) { load.acknowledgedCount >= 1500 })

        try database.cut()
        // The cut is in effect once nothing has been acknowledged for 3 s.
        let cutTook = eventually(timeout: 30, poll: 0.2) { monotonicNanoseconds() - load.lastAcknowledgement > 3_000_000_000 }
        #expect(cutTook)
        try database.restore()
        let restored = monotonicNanoseconds()
        #expect(eventually(timeout: 30, poll: 0.1) { load.lastAcknowledgement > restored },
                "nothing acknowledged within 30 s of the network's return: \(collector.log.suffix(2000))")
        let afterRestore = load.acknowledgedCount
        #expect(eventually(timeout: 30) { load.acknowledgedCount >= afterRestore + 500 })
        let summary = load.stop()
        #expect(summary.onlyRetryableFailures, "\(summary.failures)")

        let check = try PostgresConnection(url: url)
        defer { check.close() }
        let stored = try check.query("SELECT event_id::text FROM events").rows.compactMap { $0[0] }
        #expect(stored.count == Set(stored).count, "an event stored twice")
        #expect(summary.acknowledged.subtracting(stored).isEmpty, "acknowledged ids missing")
        #expect(Set(stored).isSubset(of: summary.posted))
    }
}
