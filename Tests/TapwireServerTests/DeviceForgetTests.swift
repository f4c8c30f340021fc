import Foundation
import Testing
import TapwireCore
@testable import TapwireServer
import TapwireStore
import TapwireTestSupport

/// Forgetting an install id (docs/outcomes.md, "Forgetting a device"): through the API with an
/// admin key, nothing holding the id is left in any table (every text and text[] column of every
/// table the catalog lists, so a table added later is covered too), the rollups (engagement's,
/// the conversions' and the holdouts') keep their counts, other devices keep everything, and the log names only the id's digest.
@Suite struct DeviceForgetTests {
    static let conversionRollups = """
        SELECT 'c', day::text, category, has_media::text, name || currency, concat_ws(' ', direct, influenced, converted, value_sum, value_sq, value_cube)
        FROM rollup_conversions WHERE app_id = $1::bigint
        UNION ALL SELECT 's', day::text, category, campaign || platform, name || currency, rich_converted || ' ' || text_converted
        FROM rollup_conversion_strata WHERE app_id = $1::bigint
        UNION ALL SELECT 'a', day::text, category, action_identifier, name, direct::text FROM rollup_conversion_actions WHERE app_id = $1::bigint
        UNION ALL SELECT 't', day::text, name, currency, kind::text, conversions || ' ' || value_sum FROM rollup_conversion_totals WHERE app_id = $1::bigint
        ORDER BY 1, 2, 3, 4, 5, 6
        """
    static let holdoutRollups = """
        SELECT campaign, held_out::text, holdout_share::text, day::text, concat_ws(' ', assigned, converted, value_sum, value_sq, value_cube)
        FROM rollup_holdouts WHERE app_id = $1::bigint ORDER BY 1, 2, 3, 4
        """

    /// The sender's assignment of `device` to campaign spring (docs/holdouts.md).
    static func assignment(_ device: String, heldOut: Bool, at time: Timestamp) -> JSONValue {
        .object([("eventId", .string(EventID.v7(at: time).description)), ("type", "assignment"),
                 ("timestamp", .string(time.description)), ("campaign", "spring"), ("arm", .string(heldOut ? "held_out" : "treated")),
                 ("holdoutShare", .double(0.5)), ("deviceId", .string(device))])
    }

    /// A device's day: deliveries, an open, a registered action, conversions after each.
    static func events(at start: Timestamp, device: String? = nil) -> [JSONValue] {
        func own(_ extra: [(String, JSONValue)]) -> [(String, JSONValue)] { device.map { extra + [("deviceId", .string($0))] } ?? extra }
        var events: [JSONValue] = []
        for i in 0..<3 {
            let t = start.adding(seconds: Double(i) * 7200)
            events.append(TestBatch.event("delivered", at: t, category: "promo", own([("notificationId", .string("n-\(i)")), ("hasMedia", .bool(i % 2 == 0))])))
            if i > 0 {
                events.append(TestBatch.event("response", at: t.adding(seconds: 60), category: "promo",
                                              own([("notificationId", .string("n-\(i)")), ("actionIdentifier", i == 1 ? .string(SystemAction.open) : "buy")])))
            }
            events.append(ConversionIngestionTests.conversion(own([("name", "purchase"), ("value", 9.5), ("currency", "EUR")]), at: t.adding(seconds: 600)))
        }
        return events
    }

    @Test func aForgottenInstallIdIsInNoTableAndTheRollupsKeepTheirCounts() throws {
        // The test folds itself, so the queue it writes is there when it forgets: no background fold
        // and no findings monitor, whose every scan folds first (it drained the queue once, under load).
        let server = try TestCollector.start { $0.rollupFoldMilliseconds = 3_600_000; $0.findingsMonitor = false }
        let database = server.database
        let app = try database.createApp()
        let other = try database.createApp()
        let connection = try database.connect()
        defer { connection.close() }
        let admin = try AppStore().rotateKey(appNamed: app.name, kind: .admin, graceSeconds: 0, on: connection)
        let otherAdmin = try AppStore().rotateKey(appNamed: other.name, kind: .admin, graceSeconds: 0, on: connection)
        #expect(admin.text.hasPrefix("twa_"))

        let forgotten = "install-" + UUID().uuidString, kept = "install-" + UUID().uuidString
        let start = Timestamp.now.adding(seconds: -86_400)
        let client = server.client()
        // Its own batches, a backend's batch naming it per event beside another device, and the
        // same id in another app (forgetting is per app).
        for (key, body) in [
            (app.writeKey, TestBatch.body(Self.events(at: start), context: [("appVersion", "1.0"), ("platform", "iOS"), ("deviceId", .string(forgotten))])),
            (app.writeKey, TestBatch.body(Self.events(at: start.adding(seconds: 3600), device: forgotten), context: [("appVersion", "1.0"), ("platform", "iOS"), ("deviceId", .string(kept))])),
            (app.writeKey, TestBatch.body(Self.events(at: start), context: [("appVersion", "1.0"), ("platform", "iOS"), ("deviceId", .string(kept))])),
            (other.writeKey, TestBatch.body(Self.events(at: start), context: [("appVersion", "1.0"), ("platform", "iOS"), ("deviceId", .string(forgotten))])),
        ] {
            #expect(try ReportFixtures.post(client, key: key.text, body)["accepted"]?.numberValue?.integer == 8)
        }
        // The sender's assignments of both devices to a holdout campaign, before their conversions.
        let assignments = TestBatch.body([Self.assignment(forgotten, heldOut: false, at: start.adding(seconds: -60)),
                                          Self.assignment(kept, heldOut: true, at: start.adding(seconds: -60))],
                                         context: [("appVersion", "backend"), ("platform", "server")])
        #expect(try ReportFixtures.post(client, key: app.writeKey.text, assignments)["accepted"]?.numberValue?.integer == 2)
        try RollupStore().fold(on: connection)
        #expect(try connection.query("SELECT count(*) FROM holdout_assignments WHERE app_id = $1::bigint AND converted_at IS NOT NULL",
                                     [String(app.appId)]).scalar == "2", "both devices converted within the window")
        #expect(server.firstFoldDone())
        // A commit not yet attributed: its queue holds both devices, and one holds the id alone.
        let t = start.adding(seconds: 5).description
        try connection.query("""
            INSERT INTO attribution_pending (app_id, device_ids, event_times, conversions)
            VALUES ($1::bigint, ARRAY[$2::text, $3::text, $2::text, NULL], ARRAY[$4::timestamptz, $4::timestamptz + interval '1 s', $4::timestamptz + interval '2 s', $4::timestamptz + interval '3 s'],
                    ARRAY[false, false, false, true]),
                   ($1::bigint, ARRAY[$3::text], ARRAY[$4::timestamptz], ARRAY[false])
            """, [String(app.appId), kept, forgotten, t])
        // And the holdouts' queue of such commits.
        try connection.query("""
            INSERT INTO holdout_pending (app_id, device_ids, event_times)
            VALUES ($1::bigint, ARRAY[$2::text, $3::text, $2::text], ARRAY[$4::timestamptz, $4::timestamptz + interval '1 s', $4::timestamptz + interval '2 s']),
                   ($1::bigint, ARRAY[$3::text], ARRAY[$4::timestamptz])
            """, [String(app.appId), kept, forgotten, t])

        let holdersBefore = try InstallIdScan.holders(of: forgotten, on: connection)
        #expect(holdersBefore == ["attribution_devices.device_id", "attribution_pending.device_ids", "conversion_credits.device_id", "events.device_id",
                                  "holdout_assignments.device_id", "holdout_pending.device_ids", "notification_conversions.device_id"],
                "the scan must see the id where it is stored before anything is forgotten")
        let engagement = try RollupSnapshot.rows(appId: app.appId, on: connection)
        let conversions = try connection.query(Self.conversionRollups, [String(app.appId)]).rows
        #expect(!conversions.isEmpty)
        let holdouts = try connection.query(Self.holdoutRollups, [String(app.appId)]).rows
        #expect(!holdouts.isEmpty)
        let keptEvents = try connection.query("SELECT count(*) FROM events WHERE device_id = $1", [kept]).scalar
        let otherApp = try connection.query("SELECT count(*) FROM events WHERE app_id = $1::bigint", [String(other.appId)]).scalar

        // Only the app's admin key may forget; a bad body is a 400 that says the fix.
        let body = JSONValue.object([("deviceId", .string(forgotten))]).serializedBytes()
        for key in [app.writeKey.text, app.readKey.text] {
            let refused = try client.post("/v1/devices/forget", key: key, json: body)
            #expect(refused.status == 403)
            #expect(refused.errorCode == "forbidden")
        }
        #expect(try client.post("/v1/devices/forget", key: nil, json: body).status == 401)
        for bad in [#"{}"#, #"{"deviceId": ""}"#, #"{"deviceId": 7}"#, #"{"deviceId": "a", "extra": 1}"#, #"["x"]"#, #"{"deviceId": "a\u0000"}"#] {
            let response = try client.post("/v1/devices/forget", key: admin.text, json: Array(bad.utf8))
            #expect(response.status == 400, "\(bad)")
            #expect(response.errorCode == "bad_request", "\(bad)")
        }
        #expect(try client.post("/v1/devices/forget", key: admin.text, json: Array("{".utf8)).errorCode == "malformed_json")
        #expect(try InstallIdScan.holders(of: forgotten, on: connection) == holdersBefore)

        let response = try client.post("/v1/devices/forget", key: admin.text, json: body)
        #expect(response.status == 200)
        let digest = ForgottenDevice.digest(of: forgotten)
        #expect(response.json?["device"]?.stringValue == digest)
        let removed = response.json?["removed"]
        // 8 of its own batch, 8 the backend posted for it and its assignment.
        #expect(removed?["events"]?.numberValue?.integer == 17)
        #expect(removed?["conversion_credits"]?.numberValue?.integer == 6)
        #expect((removed?["notification_conversions"]?.numberValue?.integer ?? 0) > 0)
        #expect(removed?["attribution_devices"]?.numberValue?.integer == 1)
        #expect(removed?["attribution_pending"]?.numberValue?.integer == 2)
        #expect(removed?["holdout_assignments"]?.numberValue?.integer == 1)
        #expect(removed?["holdout_pending"]?.numberValue?.integer == 2)
        #expect(!response.text.contains(forgotten))

        // In no table of this app; the rollups keep their counts; the other device and the other
        // app keep everything; the queue keeps the other device's entries, in order.
        let left = try InstallIdScan.holders(of: forgotten, on: connection)
        #expect(left == ["attribution_devices.device_id", "conversion_credits.device_id", "events.device_id", "notification_conversions.device_id"],
                "only the other app's rows: \(left)")
        for table in ["events", "conversion_credits", "notification_conversions", "attribution_devices"] {
            #expect(try connection.query("SELECT count(*) FROM \(table) WHERE device_id = $1 AND app_id <> $2::bigint", [forgotten, String(other.appId)]).scalar == "0")
        }
        #expect(try connection.query("""
            SELECT device_ids::text, event_times = ARRAY[$2::timestamptz, $2::timestamptz + interval '2 s', $2::timestamptz + interval '3 s'], conversions::text
            FROM attribution_pending WHERE app_id = $1::bigint
            """, [String(app.appId), t]).rows == [["{\(kept),\(kept),NULL}", "t", "{f,f,t}"]])
        #expect(try connection.query("""
            SELECT device_ids::text, event_times = ARRAY[$2::timestamptz, $2::timestamptz + interval '2 s'] FROM holdout_pending WHERE app_id = $1::bigint
            """, [String(app.appId), t]).rows == [["{\(kept),\(kept)}", "t"]])
        #expect(try connection.query("SELECT device_id FROM holdout_assignments WHERE app_id = $1::bigint", [String(app.appId)]).rows == [[kept]])
        #expect(try connection.query(Self.holdoutRollups, [String(app.appId)]).rows == holdouts)
        #expect(try RollupSnapshot.rows(appId: app.appId, on: connection) == engagement)
        #expect(try connection.query(Self.conversionRollups, [String(app.appId)]).rows == conversions)
        #expect(try connection.query("SELECT count(*) FROM events WHERE device_id = $1", [kept]).scalar == keptEvents)
        #expect(try connection.query("SELECT count(*) FROM events WHERE app_id = $1::bigint", [String(other.appId)]).scalar == otherApp)

        // The other app's admin key forgets it there, and then nothing anywhere holds it.
        let there = try client.post("/v1/devices/forget", key: otherAdmin.text, json: body)
        #expect(there.json?["removed"]?["events"]?.numberValue?.integer == 8)
        #expect(try InstallIdScan.holders(of: forgotten, on: connection) == [])
        // Again: nothing more to remove.
        let again = try client.post("/v1/devices/forget", key: admin.text, json: body)
        #expect(again.status == 200)
        #expect(again.json?["removed"]?.objectValue?.members.allSatisfy { $0.value.numberValue?.integer == 0 } == true)
        // The next fold changes no count.
        try RollupStore().fold(on: connection)
        #expect(try RollupSnapshot.rows(appId: app.appId, on: connection) == engagement)
        #expect(try connection.query(Self.conversionRollups, [String(app.appId)]).rows == conversions)
        #expect(try connection.query(Self.holdoutRollups, [String(app.appId)]).rows == holdouts)
        #expect(try connection.query("SELECT count(*) FROM holdout_pending WHERE app_id = $1::bigint", [String(app.appId)]).scalar == "0")

        // The log says what was forgotten, by digest, and never the id.
        let lines = server.logs.capturedLines
        #expect(lines.filter { $0.contains("device forgotten") && $0.contains(digest) }.count == 3)
        #expect(!lines.contains { $0.contains(forgotten) })
    }

    @Test func theForgetRouteTakesOnlyAdminKeysAndAdminKeysTakeNothingElse() throws {
        let server = try TestCollector.start()
        let app = try server.database.createApp()
        let connection = try server.database.connect()
        defer { connection.close() }
        let admin = try AppStore().rotateKey(appNamed: app.name, kind: .admin, graceSeconds: 0, on: connection)
        let client = server.client()
        #expect(try client.post("/v1/batch", key: admin.text, json: TestBatch.body([TestBatch.event()])).status == 403)
        #expect(try client.get("/v1/reports/engagement", key: admin.text).status == 403)
        #expect(try server.database.query("SELECT count(*) FROM events").scalar == "0")
        // An id never seen: 200, nothing removed, every table named.
        let unknown = try client.post("/v1/devices/forget", key: admin.text, json: JSONValue.object([("deviceId", "never-seen")]).serializedBytes())
        #expect(unknown.status == 200)
        #expect(unknown.json?["removed"]?.objectValue?.members.map(\.key)
                == ["events", "conversion_credits", "notification_conversions", "attribution_devices", "attribution_pending",
                    "holdout_assignments", "holdout_pending"])
        #expect(unknown.json?["removed"]?.objectValue?.members.allSatisfy { $0.value.numberValue?.integer == 0 } == true)
        #expect(APIKey(parsing: admin.text) == admin)
        #expect(APIKey.redactingSecrets(in: "key \(admin.text) here") == "key \(admin.redacted) here")
    }
}
