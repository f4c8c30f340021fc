import Foundation
import Testing
import TapwireCore
import TapwireStatistics
@testable import TapwireStore
import TapwireTestSupport

/// Across migration 0161 a collector of the release before it, still running during a rolling
/// upgrade, would store events without queueing their attribution: its commit, which names every
/// column of rollup_delta_batches but attribution_queued, is refused as unavailable (57P03, which
/// it answers with 503 and Retry-After) and stores nothing (docs/deployment.md, "Upgrading a
/// fleet across migrations 0150 and 0161").
@Suite struct OutcomesMigrationTests {
    @Test func aCommitThatQueuesNoAttributionIsRefusedAsUnavailable() throws {
        let db = try TestDatabase.create()
        let app = try db.createApp()
        let connection = try db.connect()
        defer { connection.close() }
        let writer = EventWriter(connection: connection, partitions: PartitionDays())
        let event = Event(eventId: .v7(at: .now), type: .delivered, deviceTime: .now, category: "promo")
        let batch = StagedBatch(appId: app.appId, receivedAt: .now, context: DeviceContext(appVersion: "1.0", platform: "iOS", deviceId: "d"),
                                events: [event])
        #expect(try writer.commit([batch]).first?.stored == 1)
        let columns = try connection.query("""
            SELECT string_agg(quote_ident(attname), ', ' ORDER BY attnum) FROM pg_attribute
            WHERE attrelid = 'rollup_delta_batches'::regclass AND attnum > 0 AND NOT attisdropped AND attname <> 'attribution_queued'
            """).scalar!
        #expect(columns.contains("os"))
        do {
            try connection.query("INSERT INTO rollup_delta_batches (\(columns)) SELECT \(columns) FROM rollup_delta_batches")
            Issue.record("a commit without attribution_queued was taken")
        } catch {
            #expect(error.sqlState == "57P03" && error.isUnavailable)
            #expect(error.message.contains("0161"))
        }
        #expect(try db.query("SELECT count(*), bool_and(attribution_queued) FROM rollup_delta_batches").rows.first == ["1", "t"])
    }
}
