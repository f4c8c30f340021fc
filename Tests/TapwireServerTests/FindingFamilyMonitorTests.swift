import Foundation
import Testing
import TapwireCore
import TapwireReport
import TapwireLifecycle
import TapwireServer
import TapwireStore
import TapwireTestSupport

/// The findings monitor, /metrics, the outbox and the webhook work on the families they are
/// given and name none: a third family's findings (the holdouts' `sample_ratio_mismatch`, as
/// TapwireTestSupport writes it) are scanned at its cadence, shown in the gauge, counted as its
/// checks, claimed in the outbox and posted with its own facts.
@Suite struct FindingFamilyMonitorTests {
    @Test func aThirdFamilyIsScannedShownAndAnnounced() throws {
        let database = try TestDatabase.create()
        let app = try database.createApp("holdouts")
        let receiver = try WebhookReceiver()
        defer { receiver.stop() }
        let finding = SampleRatioFamily.finding(version: "2.0", since: .now)
        let family = SampleRatioFamily(apps: [(app.appId, "holdouts")], findings: [finding])
        var options = FindingMonitor.Options()
        options.deliverySeconds = 0.05
        options.scanSeconds = 0.2
        let metrics = MetricsRegistry()
        let monitor = FindingMonitor(databaseURL: database.url, options: options, families: [family], webhookURL: receiver.url,
                                     metrics: metrics, logger: Logger(label: "test", sink: .memory()))
        let services = ServiceGroup([monitor], logger: Logger(label: "test", sink: .memory()))
        try services.start()
        defer { services.shutdown() }
        #expect(eventually(timeout: 20) { receiver.messages.count == 1 })
        let text = try #require(receiver.messages.first?.body?["text"]?.stringValue)
        #expect(text.contains("sample_ratio_mismatch") && text.contains("holdout share off its target"), "\(text)")
        let exposition = metrics.render()
        #expect(exposition.contains(#"tapwire_findings_active{app="holdouts",kind="sample_ratio_mismatch",severity="warning",category="promo",action=""} 1"#),
                "\(exposition)")
        #expect(exposition.contains(#"tapwire_findings_checks_total{family="sample_ratio_mismatch"}"#))
        // Claimed once: later scans find the same key and queue nothing more.
        #expect(eventually(timeout: 10) { (try? database.query("SELECT count(*) FROM finding_alerts WHERE kind = 'sample_ratio_mismatch' AND state = 'sent'").scalar) == "1" })
        func checks() -> Int {
            let line = metrics.render().split(separator: "\n").first { $0.hasPrefix(#"tapwire_findings_checks_total{family="sample_ratio_mismatch"}"#) }
            return line.flatMap { Double($0.split(separator: " ").last ?? "") }.map { Int($0) } ?? 0
        }
        let sent = checks()
        #expect(eventually(timeout: 10) { checks() >= sent + 2 }, "two more scans")
        #expect(try database.query("SELECT count(*) FROM finding_alerts").scalar == "1")
        #expect(receiver.messages.count == 1)
    }

    /// Each scan folds every pending row first, so a test that writes the fold's queues by hand
    /// (DeviceForgetTests) and a collector that only ingests turn the monitor off: the queue
    /// a scan would drain within a scan period stays as written, and no family is checked.
    @Test(arguments: [true, false]) func theMonitorFoldsTheQueuesUnlessItIsOff(monitor: Bool) throws {
        let server = try TestCollector.start {
            $0.rollupFoldMilliseconds = 3_600_000
            $0.alertOptions.scanSeconds = 0.2
            $0.findingsMonitor = monitor
        }
        defer { server.stop() }
        #expect(server.firstFoldDone())
        let app = try server.database.createApp()
        try server.database.query("""
            INSERT INTO holdout_pending (app_id, device_ids, event_times) VALUES ($1::bigint, ARRAY['install-a'], ARRAY[now()])
            """, [String(app.appId)])
        func queued() -> String? { try? server.database.query("SELECT count(*) FROM holdout_pending WHERE app_id = $1::bigint", [String(app.appId)]).scalar }
        if monitor {
            #expect(eventually(timeout: 60) { queued() == "0" }, "a scan folds the queue")
            // The scan's fold drains the queue before its families are checked and counted.
            #expect(eventually(timeout: 60) { server.metrics.render().contains("tapwire_findings_checks_total{family=") })
        } else {
            // Ten scan periods: a monitor that ran would have drained it.
            Thread.sleep(forTimeInterval: 2)
            #expect(queued() == "1")
            #expect(!server.metrics.render().contains("tapwire_findings_checks_total{family="))
        }
    }
}
