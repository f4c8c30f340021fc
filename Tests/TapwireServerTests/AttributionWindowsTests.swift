import Foundation
import Testing
import TapwireCore
import TapwireStatistics
@testable import TapwireServer
import TapwireStore
import TapwireTestSupport

/// Changing an app's windows (`tapwire apps attribution`, docs/outcomes.md "Windows") recomputes
/// every credit: the credits, the notifications' rows and the conversion rollups then equal those
/// of an app that had the new windows when the same events were posted.
@Suite struct AttributionWindowsTests {
    @Test func newWindowsRecomputeEveryCreditAsAFreshComputation() throws {
        let server = try TestCollector.start { $0.rateLimitPerSecond = 0; $0.rollupFoldMilliseconds = 3_600_000; $0.findingsMonitor = false }
        let changed = try server.database.createApp("changed")
        let fresh = try server.database.createApp("fresh")
        let connection = try server.database.connect()
        defer { connection.close() }
        let store = AttributionStore()
        let defaults = try store.windows(appId: changed.appId, on: connection)
        #expect(defaults?.direct == 3600 && defaults?.influence == 86_400)
        // The fresh app has the new windows before anything is posted: nothing to recompute.
        #expect(try store.setWindows(appId: fresh.appId, directSeconds: 600, influenceSeconds: 7200, on: connection)
                == AttributionStore.Recomputed(conversions: 0, changedCredits: 0))

        var rng = SeededGenerator(seed: 35_004)
        let client = server.client()
        for body in ConversionTraffic.batches(&rng, start: Timestamp.now.adding(seconds: -3 * 86_400)) {
            for app in [changed, fresh] { _ = try ReportFixtures.post(client, key: app.writeKey.text, body) }
        }
        try RollupStore().fold(on: connection)
        let before = try connection.query(AttributionSnapshot.sql, [String(changed.appId)]).rows
        #expect(try connection.query("SELECT count(DISTINCT kind) FROM conversion_credits WHERE app_id = $1::bigint", [String(changed.appId)]).scalar == "3")
        #expect(before != (try connection.query(AttributionSnapshot.sql, [String(fresh.appId)]).rows), "the windows must matter to this data")

        let recomputed = try store.setWindows(appId: changed.appId, directSeconds: 600, influenceSeconds: 7200, on: connection)
        let conversions = try connection.query("SELECT count(*) FROM events WHERE app_id = $1::bigint AND type = 'conversion'", [String(changed.appId)])
        #expect(recomputed.conversions == Int64(conversions.scalar ?? "") && recomputed.conversions > 100)
        #expect(recomputed.changedCredits > 0)
        let set = try store.windows(appId: changed.appId, on: connection)
        #expect(set?.direct == 600 && set?.influence == 7200)
        let afterChange = try connection.query(AttributionSnapshot.sql, [String(changed.appId)]).rows
        let freshRows = try connection.query(AttributionSnapshot.sql, [String(fresh.appId)]).rows
        #expect(afterChange.count == freshRows.count)
        #expect(afterChange.filter { !freshRows.contains($0) }.isEmpty && freshRows.filter { !afterChange.contains($0) }.isEmpty,
                "only after the change: \(afterChange.filter { !freshRows.contains($0) }.prefix(6)); only fresh: \(freshRows.filter { !afterChange.contains($0) }.prefix(6))")
        #expect(try connection.query("SELECT count(*) FROM attribution_pending").scalar == "0")

        // And back: the first computation again.
        _ = try store.setWindows(appId: changed.appId, directSeconds: 3600, influenceSeconds: 86_400, on: connection)
        #expect(try connection.query(AttributionSnapshot.sql, [String(changed.appId)]).rows == before)
        // The database refuses what the CLI refuses.
        #expect(throws: DatabaseError.self) { try store.setWindows(appId: changed.appId, directSeconds: 0, influenceSeconds: 60, on: connection) }
        #expect(throws: DatabaseError.self) {
            try store.setWindows(appId: changed.appId, directSeconds: 60, influenceSeconds: 31 * 86_400, on: connection)
        }
    }

    /// Forgetting a device and changing the windows take the lock a fold's attribution of the app
    /// takes (migrations 0202 and 0220): while an attribution's transaction is open, both wait
    /// (here until their lock timeout, 55P03); once it ends, both run.
    @Test func forgettingAndNewWindowsWaitForARunningAttribution() throws {
        let server = try TestCollector.start { $0.rateLimitPerSecond = 0; $0.rollupFoldMilliseconds = 3_600_000; $0.findingsMonitor = false }
        let app = try server.database.createApp("locked")
        let fold = try server.database.connect()
        defer { fold.close() }
        let other = try server.database.connect()
        defer { other.close() }
        let id = String(app.appId)
        try fold.query("BEGIN")
        _ = try fold.query("SELECT tapwire_attribute_pending($1::bigint)", [id])
        let waiting = [("SELECT count(*) FROM tapwire_forget_device($1::bigint, 'install-1')", "forget"),
                       ("SELECT tapwire_set_attribution_windows($1::bigint, interval '10 minutes', interval '2 hours')", "windows")]
        for (statement, what) in waiting {
            try other.query("BEGIN")
            try other.query("SET LOCAL lock_timeout = '300ms'")
            do {
                _ = try other.query(statement, [id])
                Issue.record("\(what) ran beside an open attribution of the app")
            } catch {
                #expect(error.sqlState == "55P03", "\(what): \(error)")
            }
            try other.query("ROLLBACK")
        }
        try fold.query("COMMIT")
        for (statement, what) in waiting {
            #expect(throws: Never.self, "\(what)") { _ = try other.query(statement, [id]) }
        }
    }
}
