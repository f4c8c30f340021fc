import Foundation
import Testing
import TapwireCore
import TapwireStore
import TapwireTestSupport

/// `tapwire retention` driven as cron would: the engagement report over the kept range, and
/// over the dropped range too (it reads the rollups), is the same after retention as before.
@Suite(.serialized) struct RetentionCommandTests {
    func blankDatabase() throws -> String {
        let name = "ret_" + String(UInt32.random(in: 0...UInt32.max))
        let admin = try PostgresConnection(url: try TestPostgres.serverURL())
        defer { admin.close() }
        try admin.query("CREATE DATABASE \(name)")
        return try TestPostgres.url(database: name)
    }

    /// The report JSON without its generation time and source (rollups or raw events).
    func report(_ url: String, from: Timestamp, to: Timestamp, raw: Bool = false) throws -> String {
        let result = try TapwireBinary.run(["report", "--app", "demo", "--from", from.description, "--to", to.description,
                                            "--format", "json", "--database-url", url] + (raw ? ["--from-raw"] : []))
        try #require(result.status == 0, "\(result.output)")
        let json = try JSONParser().parse(result.output)
        let members = try #require(json.objectValue?.members).filter { $0.key != "generatedAt" && $0.key != "source" }
        return JSONValue.object(members.map { ($0.key, $0.value) }).serialized()
    }

    @Test func reportsAreUnchangedAfterRetention() throws {
        let url = try blankDatabase()
        let hour: Int64 = 3_600_000_000, day = 24 * hour
        let end = Timestamp(microseconds: Timestamp.now.microseconds / hour * hour)
        #expect(try TapwireBinary.run(["migrate", "--database-url", url]).status == 0)
        // Engagement only (no conversions, no holdout): the conversions of a day a range cuts are read from their credits, which
        // retention drops with the partitions (docs/outcomes.md, "Retention").
        let demo = try TapwireBinary.run(["demo", "--database-url", url, "--notifications", "15000", "--devices", "300", "--days", "10",
                                          "--end", end.description, "--format", "none", "--outcome-devices", "0", "--holdout-devices", "0"])
        try #require(demo.status == 0, "\(demo.output)")
        // The same telemetry a year and two months earlier (older than the collector accepts,
        // so loaded directly), with its dedup ids, and its rollups rebuilt from it.
        let shift = 420 * day
        let connection = try PostgresConnection(url: url)
        defer { connection.close() }
        try connection.query("SELECT tapwire_ensure_event_partitions(current_date - 432, current_date - 418)")
        try connection.query("""
            INSERT INTO events (app_id, event_time, event_id, type, device_time, received_at, time_clamped, notification_id, category,
                action_identifier, user_text_length, has_media, media_types, media_requested, category_registered, campaign, variant,
                delivered_at, app_version, build, platform, os_version, sdk, device_id, conversion_name, conversion_value,
                conversion_currency)
            SELECT app_id, event_time - interval '420 days', gen_random_uuid(), type, device_time - interval '420 days',
                received_at - interval '420 days', time_clamped, notification_id, category, action_identifier, user_text_length,
                has_media, media_types, media_requested, category_registered, campaign, variant, delivered_at - interval '420 days',
                app_version, build, platform, os_version, sdk, device_id, conversion_name, conversion_value, conversion_currency
            FROM events
            """)
        try connection.query("""
            INSERT INTO event_ids (app_id, event_id, received_at)
            SELECT app_id, event_id, received_at FROM events WHERE event_time < now() - interval '400 days'
            """)
        let oldFrom = Timestamp(microseconds: end.microseconds - shift - 10 * day), oldTo = Timestamp(microseconds: end.microseconds - shift)
        let rebuilt = try TapwireBinary.run(["rollups", "rebuild", "--app", "demo", "--from", oldFrom.description, "--to", oldTo.description,
                                             "--database-url", url])
        try #require(rebuilt.status == 0, "\(rebuilt.output)")

        let keptFrom = Timestamp(microseconds: end.microseconds - 10 * day)
        let keptBefore = try report(url, from: keptFrom, to: end)
        let oldBefore = try report(url, from: oldFrom, to: oldTo)
        let oldRawBefore = try report(url, from: oldFrom, to: oldTo, raw: true)
        #expect(oldBefore == oldRawBefore, "rollups of the old range must match its events before retention")
        #expect(keptBefore.contains("\"delivered\""))
        let oldEvents = try connection.query("SELECT count(*) FROM events WHERE event_time < $1::timestamptz", [oldTo.description]).scalar

        let refused = try TapwireBinary.run(["retention", "--keep", "30d", "--database-url", url])
        #expect(refused.status == 2 && refused.output.contains("--keep 400d"), "\(refused.output)")
        let plan = try TapwireBinary.run(["retention", "--keep", "400d", "--dry-run", "--database-url", url])
        #expect(plan.status == 0 && plan.output.contains("would drop"), "\(plan.output)")
        #expect(try connection.query("SELECT count(*) FROM events WHERE event_time < $1::timestamptz", [oldTo.description]).scalar == oldEvents)

        let run = try TapwireBinary.run(["retention", "--keep", "400d", "--format", "json", "--database-url", url])
        try #require(run.status == 0, "\(run.output)")
        let outcome = try JSONParser().parse(run.output.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect((outcome["partitions"]?.arrayValue?.count ?? 0) >= 10)
        #expect((outcome["eventIdsDeleted"]?.numberValue?.integer ?? 0) > 1000)
        #expect(try connection.query("SELECT count(*) FROM events WHERE event_time < $1::timestamptz", [oldTo.description]).scalar == "0")

        // Every report reads the rollups, which retention keeps: unchanged, kept range and old.
        #expect(try report(url, from: keptFrom, to: end) == keptBefore)
        #expect(try report(url, from: oldFrom, to: oldTo) == oldBefore)
        // The raw events of the old range are really gone.
        #expect(try report(url, from: oldFrom, to: oldTo, raw: true) != oldRawBefore)

        let again = try TapwireBinary.run(["retention", "--keep", "400d", "--database-url", url])
        #expect(again.status == 0 && again.output.contains("nothing to drop"), "\(again.output)")
        #expect(try report(url, from: keptFrom, to: end) == keptBefore)
    }
}
