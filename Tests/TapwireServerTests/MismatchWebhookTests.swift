import Foundation
import Glibc
import Synchronization
import Testing
import TapwireCore
import TapwireServer
import TapwireStore
import TapwireTestSupport

/// Fast scans and retries, so the tests take seconds.
func fastAlerts(_ url: String) -> (inout CollectorConfiguration) -> Void {
    { c in
        c.alertWebhookURL = url
        c.alertOptions.scanSeconds = 0.2
        c.alertOptions.deliverySeconds = 0.05
        c.alertOptions.requestTimeoutSeconds = 2
        c.alertOptions.retry = WebhookRetryPolicy(baseSeconds: 0.05, maxSeconds: 0.4)
    }
}

/// The scenario's warning-or-worse findings, one per (version, kind, category).
let expectedAlerts: Set<String> = [
    "3.2.1|case_mismatch|Message", "3.2.1|near_miss|socialpost", "3.2.1|unknown_category|promo",
    "3.2.1|unregistered_action|social_post", "3.2.1|impossible_dismiss|social_post", "3.1.0|no_manifest|message",
]

func outbox(_ db: TestDatabase) throws -> [String: String] {
    var out: [String: String] = [:]
    for row in try db.query("SELECT app_version || '|' || kind || '|' || category, state FROM finding_alerts").rows {
        out[row[0] ?? ""] = row[1] ?? ""
    }
    return out
}

@Suite(.serialized) struct MismatchWebhookTests {
    /// The category-mismatch scans `collector` completed (`tapwire_findings_checks_total`).
    static func scans(_ collector: TestCollector) -> Int {
        Int(collector.metrics.value(FindingMetrics.checks, ["category_mismatch"]) ?? 0)
    }

    /// Whether each collector completed three more scans than now: the second of them started
    /// after this call, and the third after that scan's delivery pass. So "nothing more is sent"
    /// is checked after a scan and a delivery that saw everything before the call, whatever the
    /// machine's load; a second of sleep let a loaded machine scan once or not at all, and the
    /// test pass whether or not a message would have been sent twice. A hang guard of 120 s.
    static func threeMoreScans(_ collectors: [TestCollector]) -> Bool {
        let before = collectors.map(scans)
        return eventually(timeout: 120) { zip(collectors, before).allSatisfy { scans($0) >= $1 + 3 } }
    }

    @Test func oneMessagePerFindingAcrossRestartsAndCollectors() throws {
        let receiver = try WebhookReceiver()
        defer { receiver.stop() }
        let first = try TestCollector.start(configure: fastAlerts(receiver.url))
        let app = try first.database.createApp("hooked")
        try postScenario(first.client(), writeKey: app.writeKey.text)

        #expect(eventually(timeout: 120) { receiver.messages.count >= expectedAlerts.count })
        // A few more scans find nothing new.
        #expect(Self.threeMoreScans([first]))
        let messages = receiver.messages
        #expect(messages.count == expectedAlerts.count)
        #expect(Set(messages.map(\.alertId)).count == messages.count)
        let texts = messages.compactMap { $0.body?["text"]?.stringValue }
        #expect(texts.count == messages.count)
        #expect(texts.contains { $0.contains("case_mismatch") && $0.contains("`Message`") && $0.contains("Suggested: `message`") })
        #expect(texts.allSatisfy { $0.contains("*hooked*") })
        #expect(try outbox(first.database) == Dictionary(uniqueKeysWithValues: expectedAlerts.map { ($0, "sent") }))

        // Restart, and run a second collector beside it on the same database: nothing is resent.
        first.stop()
        let restarted = try TestCollector(database: first.database, configure: fastAlerts(receiver.url))
        let second = try TestCollector(database: first.database, configure: fastAlerts(receiver.url))
        // More of the same problems, seen by both: still the same findings.
        let again = TestBatch.body(events("Message", count: 2) + events("promo", count: 1, registered: false), context: context("3.2.1"))
        #expect(try restarted.client().post("/v1/batch", key: app.writeKey.text, json: again).status == 200)
        #expect(Self.threeMoreScans([restarted, second]))
        #expect(receiver.messages.count == expectedAlerts.count)

        // A new finding, seen by two collectors at once, is announced exactly once.
        let fresh = TestBatch.body(events("flash_sale", count: 2), context: context("3.2.1"))
        #expect(try second.client().post("/v1/batch", key: app.writeKey.text, json: fresh).status == 200)
        #expect(eventually(timeout: 120) { receiver.messages.count == expectedAlerts.count + 1 })
        #expect(Self.threeMoreScans([restarted, second]))
        #expect(receiver.messages.count == expectedAlerts.count + 1)
        #expect(receiver.messages.last?.body?["text"]?.stringValue?.contains("flash_sale") == true)
        restarted.stop()
        second.stop()
    }

    @Test func aReceiverThatIsDownDelaysButLosesNothingAndNeverSlowsIngestion() throws {
        let receiver = try WebhookReceiver(mode: .hang)
        let server = try TestCollector.start(configure: fastAlerts(receiver.url))
        let app = try server.database.createApp("patient")
        let client = server.client()
        try postScenario(client, writeKey: app.writeKey.text)

        // The notifier's request hangs at the receiver; ingestion goes on regardless.
        #expect(eventually(timeout: 10) { receiver.attempts >= 1 })
        for i in 0..<20 {
            let r = try client.post("/v1/batch", key: app.writeKey.text,
                                    json: TestBatch.body(events("message", count: 100), context: context("3.2.1")))
            #expect(r.status == 200 && r.json?["accepted"]?.numberValue?.integer == 100, "batch \(i): \(r.text)")
        }
        #expect(receiver.messages.isEmpty)
        let port = receiver.port
        receiver.stop()

        // Down: connections refused. Deliveries are retried, nothing is marked sent or dropped.
        #expect(eventually(timeout: 15) {
            (try? server.database.query("SELECT min(attempts) FROM finding_alerts WHERE state = 'pending'").scalar)
                .flatMap { $0.flatMap { Int($0) } }.map { $0 >= 2 } ?? false
        })
        #expect(try outbox(server.database).values.allSatisfy { $0 == "pending" })
        #expect(try outbox(server.database).count == expectedAlerts.count)
        #expect((server.metrics.value(FindingMetrics.webhook, ["retry"]) ?? 0) >= 1)

        // Back up (503 first, then 200): every message arrives, once.
        let back = try WebhookReceiver(port: port, mode: .unavailable)
        defer { back.stop() }
        #expect(eventually(timeout: 15) { back.attempts >= 1 })
        back.set(.ok)
        #expect(eventually(timeout: 120) { back.messages.count == expectedAlerts.count })
        #expect(Self.threeMoreScans([server]))
        #expect(back.messages.count == expectedAlerts.count)
        #expect(Set(back.messages.map(\.alertId)).count == expectedAlerts.count)
        #expect(try outbox(server.database).values.allSatisfy { $0 == "sent" })
        server.stop()
    }

    /// The webhook's status table: 2xx delivered; 408, 425, 429 and 5xx worth retrying, with the
    /// receiver's Retry-After; anything else a refusal.
    @Test func outcomesClassifyByStatus() {
        #expect(FindingWebhook.classify(status: 200) == .delivered(status: 200))
        #expect(FindingWebhook.classify(status: 204) == .delivered(status: 204))
        if case .transientFailure(let s, let r, _) = FindingWebhook.classify(status: 429, retryAfterSeconds: 7) {
            #expect(s == 429 && r == 7)
        } else { Issue.record("429 must be transient") }
        if case .transientFailure = FindingWebhook.classify(status: 503) {} else { Issue.record("503 must be transient") }
        if case .transientFailure = FindingWebhook.classify(status: 408) {} else { Issue.record("408 must be transient") }
        if case .rejected = FindingWebhook.classify(status: 404) {} else { Issue.record("404 must be a rejection") }
    }

    @Test func anInvalidWebhookURLIsRefusedAtStart() throws {
        let database = try TestDatabase.create()
        var failure: String?
        do {
            _ = try TestCollector(database: database) { $0.alertWebhookURL = "ftp://example/hook" }
        } catch {
            failure = "\(error)"
        }
        #expect(failure?.contains("TAPWIRE_ALERT_WEBHOOK_URL must be an http or https URL") == true)
    }
}
