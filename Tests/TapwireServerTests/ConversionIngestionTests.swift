import Foundation
import Testing
import TapwireCore
@testable import TapwireServer
import TapwireStore
import TapwireTestSupport

/// Conversion events (docs/outcomes.md) through the real collector: each bad field rejected on
/// its own with its code and reason, the rest stored; dedup, the 400-day window, the per-event
/// install id and the acknowledgement after COMMIT as for every event.
@Suite struct ConversionIngestionTests {
    static func conversion(_ extra: [(String, JSONValue)], id: EventID = .v7(at: .now), at time: Timestamp = .now) -> JSONValue {
        .object([("eventId", .string(id.description)), ("type", "conversion"), ("timestamp", .string(time.description))] + extra)
    }

    static let context: [(String, JSONValue)] = [("appVersion", "1.0"), ("platform", "iOS"), ("deviceId", "install-ctx")]

    /// Waits until the fold has taken every queued device (attribution_pending empty): the
    /// background fold's, every 10 s by default. The wait is a hang guard (docs/testing.md).
    static func attributed(_ database: TestDatabase) throws -> Bool {
        try eventually(timeout: 120) { try database.query("SELECT count(*) FROM attribution_pending").scalar == "0" }
    }

    @Test func everyBadConversionIsRejectedOnItsOwnWithItsCodeAndReason() throws {
        let server = try TestCollector.start()
        let app = try server.database.createApp()
        let good = EventID.v7(at: .now)
        let cases: [(event: JSONValue, code: String, reason: String)] = [
            (Self.conversion([]), "missing_field", "name is required on a conversion"),
            (Self.conversion([("name", "")]), "missing_field", "name is required on a conversion"),
            (Self.conversion([("name", "purchase"), ("value", -1), ("currency", "EUR")]), "invalid_field", "value must be a number from 0 to 1000000000"),
            (Self.conversion([("name", "purchase"), ("value", 1_000_000_001), ("currency", "EUR")]), "invalid_field", "value must be a number from 0 to 1000000000"),
            (Self.conversion([("name", "purchase"), ("value", "@INFINITE@"), ("currency", "EUR")]), "invalid_field", "value must be a finite number"),
            (Self.conversion([("name", "purchase"), ("value", "12.5"), ("currency", "EUR")]), "invalid_field", "value must be a number, got string"),
            (Self.conversion([("name", "purchase"), ("value", 12.5)]), "missing_field", "currency is required with a value"),
            (Self.conversion([("name", "purchase"), ("value", 12.5), ("currency", "eur")]), "invalid_field", "currency must be an ISO 4217 code"),
            (Self.conversion([("name", "purchase"), ("value", 12.5), ("currency", "EURO")]), "too_long", "currency"),
            (Self.conversion([("name", "purchase"), ("currency", "EUR")]), "invalid_field", "currency is only valid with a value"),
            (TestBatch.event("delivered", [("name", "purchase")]), "invalid_field", "name is only valid on a conversion"),
            (TestBatch.event("response", [("actionIdentifier", "buy"), ("value", 3)]), "invalid_field", "value is only valid on a conversion"),
            (TestBatch.event("sent", [("currency", "EUR")]), "invalid_field", "currency is only valid on a conversion"),
            (Self.conversion([("name", "purchase"), ("actionIdentifier", "buy")]), "invalid_field", "actionIdentifier is only valid on a response"),
            (Self.conversion([("name", .string(String(repeating: "n", count: 257)))]), "too_long", "name"),
            (Self.conversion([("name", "purchase"), ("deviceId", .string(String(repeating: "d", count: 129)))]), "too_long", "deviceId"),
        ]
        var events = cases.map(\.event)
        events.append(Self.conversion([("name", "purchase"), ("value", 12.5), ("currency", "EUR"), ("notificationId", "apns-1")], id: good))
        // 1e999 is valid JSON but no Double: the event is rejected, the batch is not.
        let text = String(decoding: TestBatch.body(events, context: Self.context), as: UTF8.self).replacingOccurrences(of: "\"@INFINITE@\"", with: "1e999")
        let response = try server.client().post("/v1/batch", key: app.writeKey.text, json: Array(text.utf8))
        #expect(response.status == 200)
        #expect(response.json?["accepted"]?.numberValue?.integer == 1)
        let rejected = try #require(response.json?["rejected"]?.arrayValue)
        #expect(rejected.compactMap { $0["index"]?.numberValue?.integer } == (0..<cases.count).map(Int64.init))
        for (i, expected) in cases.enumerated() where i < rejected.count {
            #expect(rejected[i]["code"]?.stringValue == expected.code, "case \(i)")
            #expect(rejected[i]["reason"]?.stringValue?.contains(expected.reason) == true, "case \(i): \(rejected[i]["reason"]?.stringValue ?? "")")
        }
        let row = try #require(try server.database.query("""
            SELECT event_id::text, type::text, conversion_name, conversion_value, conversion_currency, notification_id, device_id, category
            FROM events
            """).rows.first)
        #expect(row == [good.description, "conversion", "purchase", "12.5", "EUR", "apns-1", "install-ctx", ""])
        #expect(server.metrics.value(CollectorMetrics.eventsRejected, ["invalid_field"]) == 10)
        #expect(server.metrics.value(CollectorMetrics.eventsRejected, ["missing_field"]) == 3)
    }

    @Test func aConversionWithoutAValueIsStoredWithoutOne() throws {
        let server = try TestCollector.start()
        let app = try server.database.createApp()
        let response = try server.client().post("/v1/batch", key: app.writeKey.text,
                                                json: TestBatch.body([Self.conversion([("name", "signup"), ("value", .null)])], context: Self.context))
        #expect(response.json?["accepted"]?.numberValue?.integer == 1)
        #expect(try server.database.query("SELECT conversion_name, conversion_value IS NULL, conversion_currency IS NULL FROM events").rows
                == [["signup", "t", "t"]])
    }

    @Test func aRetriedConversionBatchIsStoredAndCreditedOnce() throws {
        let server = try TestCollector.start()
        let app = try server.database.createApp()
        let now = Timestamp.now
        var events = [TestBatch.event("delivered", at: now.adding(seconds: -600), [("notificationId", "n-1")])]
        events += (0..<5).map { i in Self.conversion([("name", "purchase"), ("value", .double(Double(i) + 0.5)), ("currency", "EUR")],
                                                     at: now.adding(seconds: -Double(i))) }
        let body = TestBatch.body(events, context: Self.context)
        let first = try server.client().post("/v1/batch", key: app.writeKey.text, json: body)
        #expect(first.json?["accepted"]?.numberValue?.integer == 6)
        #expect(try Self.attributed(server.database))
        let second = try server.client().post("/v1/batch", key: app.writeKey.text, json: body)
        #expect(second.json?["accepted"]?.numberValue?.integer == 0)
        #expect(second.json?["duplicates"]?.numberValue?.integer == 6)
        // Nothing was queued by the retry, and the fold leaves every figure as the first post made it.
        #expect(try server.database.query("SELECT count(*) FROM attribution_pending").scalar == "0")
        let connection = try server.database.connect()
        defer { connection.close() }
        _ = try RollupStore().foldPending(on: connection)
        #expect(try server.database.query("SELECT count(*) FROM events WHERE type = 'conversion'").scalar == "5")
        #expect(try server.database.query("SELECT count(*), sum(value), min(kind), max(kind) FROM conversion_credits").rows.first == ["5", "12.5", "2", "2"])
        #expect(try server.database.query("SELECT sum(conversions), sum(value_sum) FROM rollup_conversion_totals").rows.first == ["5", "12.5"])
        #expect(try server.database.query("SELECT influenced, converted, value_sum FROM rollup_conversions").rows == [["5", "1", "12.5"]])
    }

    @Test func conversionsOlderThan400DaysAreRejectedAndYoungerOnesStored() throws {
        // The product's own limit, not the test collectors' (FixtureDates).
        let server = try TestCollector.start { $0.limits.maxEventAgeMicroseconds = IngestLimits().maxEventAgeMicroseconds }
        let app = try server.database.createApp()
        let now = Timestamp.now
        let old = Self.conversion([("name", "purchase")], at: now.adding(seconds: -401 * 86_400))
        let kept = Self.conversion([("name", "purchase")], at: now.adding(seconds: -399 * 86_400))
        let response = try server.client().post("/v1/batch", key: app.writeKey.text, json: TestBatch.body([old, kept], context: Self.context))
        #expect(response.status == 200)
        #expect(response.json?["accepted"]?.numberValue?.integer == 1)
        let rejected = try #require(response.json?["rejected"]?.arrayValue)
        #expect(rejected.map { $0["index"]?.numberValue?.integer } == [0])
        #expect(rejected.first?["code"]?.stringValue == "timestamp_too_old")
        #expect(try server.database.query("SELECT (now() - event_time) > interval '398 days' FROM events").rows == [["t"]])
    }

    @Test func anEventsOwnDeviceIdOverridesTheContexts() throws {
        let server = try TestCollector.start()
        let app = try server.database.createApp()
        let own = EventID.v7(at: .now), shared = EventID.v7(at: .now)
        let body = TestBatch.body([Self.conversion([("name", "purchase"), ("deviceId", "install-from-backend")], id: own),
                                   Self.conversion([("name", "purchase")], id: shared)], context: Self.context)
        #expect(try server.client().post("/v1/batch", key: app.writeKey.text, json: body).json?["accepted"]?.numberValue?.integer == 2)
        #expect(try server.database.query("SELECT event_id::text, device_id FROM events ORDER BY device_id").rows
                == [[shared.description, "install-ctx"], [own.description, "install-from-backend"]])
        // The fold attributes each under its own install id.
        #expect(try Self.attributed(server.database))
        #expect(try server.database.query("SELECT event_id::text, device_id, kind FROM conversion_credits ORDER BY device_id").rows
                == [[shared.description, "install-ctx", "3"], [own.description, "install-from-backend", "3"]])
    }

    /// A 200 means committed: read on another connection the moment it arrives, the conversions
    /// and their attribution queue are there; and when the queue cannot be written, the events are
    /// not stored either and the client is told to keep them.
    @Test func conversionsAreAcknowledgedOnlyAfterTheirCommit() throws {
        let server = try TestCollector.start()
        let app = try server.database.createApp()
        try server.database.query("""
            CREATE FUNCTION refuse_queue() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN RAISE EXCEPTION 'queue refused' USING ERRCODE = 'P0001'; END $$
            """)
        try server.database.query("CREATE TRIGGER refuse_queue BEFORE INSERT ON attribution_pending FOR EACH ROW EXECUTE FUNCTION refuse_queue()")
        let body = TestBatch.body((0..<3).map { _ in Self.conversion([("name", "purchase"), ("value", 1), ("currency", "USD")]) }, context: Self.context)
        let refused = try server.client().post("/v1/batch", key: app.writeKey.text, json: body)
        #expect(refused.status >= 500)
        #expect(refused.json?["accepted"] == nil)
        #expect(try server.database.query("SELECT count(*) FROM events").scalar == "0")
        try server.database.query("DROP TRIGGER refuse_queue ON attribution_pending")
        let stored = try server.client().post("/v1/batch", key: app.writeKey.text, json: body)
        #expect(stored.status == 200)
        #expect(stored.json?["accepted"]?.numberValue?.integer == 3)
        // Nothing fold-dependent: the commit itself wrote both. A device is queued with the span
        // of its conversions (EventCopyRows.encodeAttributionPending), not an entry per event: a
        // conversion is queued when its time is within its device's queued conversions.
        let seen = try server.database.query("""
            SELECT (SELECT count(*) FROM events WHERE type = 'conversion'),
                   (SELECT count(*) FROM events e
                    WHERE e.type = 'conversion'
                      AND (EXISTS (SELECT 1 FROM conversion_credits c WHERE c.event_id = e.event_id)
                           OR EXISTS (SELECT 1 FROM attribution_pending p,
                                          unnest(p.device_ids, p.event_times, p.conversions) AS u (device_id, event_time, conversion)
                                      WHERE p.app_id = e.app_id AND u.conversion AND u.device_id = e.device_id
                                      GROUP BY u.device_id
                                      HAVING e.event_time BETWEEN min(u.event_time) AND max(u.event_time))))
            """).rows.first
        #expect(seen == ["3", "3"], "queued or already credited, never neither: \(seen ?? [])")
    }
}
