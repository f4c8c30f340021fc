import Testing
import TapwireCore
@testable import TapwireStore
import TapwireTestSupport

/// Where the quarter-hour rows are complete for data stored before migration 0100
/// (rollup_quarter_coverage): what a report reads from events instead (TapwireReport/ReportPlan.swift).
@Suite struct QuarterHourTests {
    /// Migration 0100 on a database with data: an app with events (one received with a time
    /// ahead of the clock) gets "complete from" at the quarter hour after its latest event and
    /// not before now; an app created afterwards has no row (complete throughout).
    @Test func theMigrationSetsCompleteFromPastEveryStoredEvent() throws {
        let name = try TestPostgres.blankDatabase(prefix: "t_quarter")
        let connection = try PostgresConnection(url: try TestPostgres.url(database: name))
        defer { connection.close() }
        try Migrator(through: 90).migrate(connection)
        let old = try connection.query("INSERT INTO apps (name) VALUES ('before') RETURNING app_id").scalar ?? ""
        let idle = try connection.query("INSERT INTO apps (name) VALUES ('idle') RETURNING app_id").scalar ?? ""
        try connection.query("SELECT tapwire_ensure_event_partitions(current_date - 1, current_date + 2)")
        try connection.query("""
            INSERT INTO events (app_id, event_time, event_id, type, device_time, received_at, category, app_version, platform)
            SELECT $1::bigint, t, gen_random_uuid(), 'delivered', t, now(), 'message', '1.0', 'iOS'
            FROM unnest(ARRAY[now() - interval '3 hours', now() + interval '20 hours 7 minutes']) t
            """, [old])
        let before = try connection.query("SELECT clock_timestamp()").scalar ?? ""
        try Migrator().migrate(connection)
        // The latest event's quarter hour, and the one after; for the idle app, a quarter hour
        // after the migration started and not later than the one after now.
        let rows = try connection.query("""
            SELECT a.name,
                   c.complete_from = (SELECT tapwire_quarter_hour(max(event_time)) + interval '15 minutes' FROM events WHERE app_id = a.app_id),
                   c.complete_from > $1::timestamptz AND c.complete_from <= tapwire_quarter_hour(clock_timestamp()) + interval '15 minutes'
            FROM apps a JOIN rollup_quarter_coverage c USING (app_id) ORDER BY a.name
            """, [before]).rows.map { $0.map { $0 ?? "NULL" } }
        #expect(rows == [["before", "t", "f"], ["idle", "NULL", "t"]])
        _ = idle
        let created = try connection.query("INSERT INTO apps (name) VALUES ('after') RETURNING app_id").scalar ?? ""
        #expect(try connection.query("SELECT count(*) FROM rollup_quarter_coverage WHERE app_id = $1::bigint", [created]).scalar == "0")
    }
}
