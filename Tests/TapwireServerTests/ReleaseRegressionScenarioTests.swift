import Foundation
import Testing
import TapwireCore
import TapwireServer
import TapwireStore
import TapwireTestSupport

/// The release-regression check end to end (docs/regressions.md): traffic posted through
/// `POST /v1/batch` and manifests through `POST /v1/categories`, folded into the release rollups
/// of a real PostgreSQL, evaluated by `GET /v1/reports/regressions` and `GET /v1/findings` (and
/// `tapwire alerts`) as of instants in the past.
@Suite(.serialized) struct ReleaseRegressionScenarioTests {
    /// A UTC midnight three days back: the candidate's release. Everything posted lies before now.
    static let release: Timestamp = {
        let day: Int64 = 86_400_000_000
        return Timestamp(microseconds: RollupDeltas.floor(Timestamp.now.microseconds, day) - 3 * day)
    }()

    static func hours(_ n: Double) -> Timestamp { release.adding(seconds: n * 3600) }

    static let inviteActions = ["accept", "decline"]
    static let baseRates: [String: Double] = [SystemAction.open: 0.20, "accept": 0.10, "decline": 0.05, SystemAction.dismiss: 0.08]
    static let messageRates: [String: Double] = [SystemAction.open: 0.25, "reply": 0.06, "like": 0.04]

    typealias CategorySpec = (identifier: String, actions: [String], textInput: Set<String>, customDismiss: Bool)
    static let categories: [CategorySpec] = [
        ("invite", inviteActions, [], true),
        ("message", ["reply", "like"], ["reply"], false),
    ]

    /// A version's traffic on both categories, iOS and iPadOS, from `from` for `hours`.
    static func traffic(_ version: String, from: Timestamp, hours: Int, perHour: Int = 100, iPadShare: Double = 0.2,
                        invite: [String: Double] = baseRates, message: [String: Double] = messageRates,
                        iPadFactor: Double = 1) -> [TrafficPlan] {
        var plans: [TrafficPlan] = []
        for (platform, share) in [("iOS", 1 - iPadShare), ("iPadOS", iPadShare)] where share > 0 {
            let n = Int((Double(perHour) * share).rounded())
            let factor = platform == "iPadOS" ? iPadFactor : 1
            plans.append(TrafficPlan(category: "invite", version: version, platform: platform, from: from, hours: hours,
                                     deliveriesPerHour: n, rates: invite.mapValues { $0 * factor }))
            plans.append(TrafficPlan(category: "message", version: version, platform: platform, from: from, hours: hours,
                                     deliveriesPerHour: n, rates: message.mapValues { $0 * factor }, textActions: ["reply"]))
        }
        return plans
    }

    struct Scenario {
        let server: TestCollector
        let app: CreatedApp

        func post(_ plans: [TrafficPlan], seed: UInt64) throws {
            try ReleaseTraffic.post(plans, seed: seed, client: server.client(), writeKey: app.writeKey.text)
        }

        func manifest(_ version: String, _ categories: [CategorySpec] = ReleaseRegressionScenarioTests.categories) throws {
            let r = try server.client().post("/v1/categories", key: app.writeKey.text,
                                              json: ReleaseTraffic.manifest(version: version, categories: categories))
            #expect(r.status == 200, "\(r.text)")
        }

        func regressions(at: Timestamp) throws -> JSONValue {
            let r = try server.client().get("/v1/reports/regressions?app=\(app.name)&at=\(at.description)", key: app.readKey.text)
            #expect(r.status == 200, "\(r.text)")
            return try #require(r.json)
        }

        func findings(at: Timestamp, minSeverity: String = "info") throws -> JSONValue {
            let r = try server.client().get("/v1/findings?app=\(app.name)&at=\(at.description)&minSeverity=\(minSeverity)",
                                            key: app.readKey.text)
            #expect(r.status == 200, "\(r.text)")
            return try #require(r.json)
        }
    }

    static func scenario(_ name: String, configure: (inout CollectorConfiguration) -> Void = { _ in }) throws -> Scenario {
        let server = try TestCollector.start(configure: configure)
        return Scenario(server: server, app: try server.database.createApp(name))
    }

    static func series(_ check: JSONValue, _ category: String, _ outcome: String, action: String? = nil) -> JSONValue? {
        check["series"]?.arrayValue?.first {
            $0["category"]?.stringValue == category && $0["outcome"]?.stringValue == outcome
                && (action == nil || $0["action"]?.stringValue == action)
        }
    }

    static func regressionFindings(_ check: JSONValue) -> [JSONValue] {
        (check["findings"]?.arrayValue ?? []).filter { $0["kind"]?.stringValue == "engagement_regression" }
    }

    /// The "accept" button of 1.1 does nothing: its taps fall from 10% to 0.5%. It is flagged
    /// within a day of the release, with the documented JSON names, and nothing else is.
    @Test func aBrokenButtonIsFlaggedWithinADayOfTheRelease() throws {
        let s = try Self.scenario("broken")
        try s.manifest("1.0")
        try s.manifest("1.1")
        var broken = Self.baseRates
        broken["accept"] = 0.005
        try s.post(Self.traffic("1.0", from: Self.hours(-24), hours: 72) + Self.traffic("1.1", from: Self.release, hours: 48, invite: broken),
                   seed: 1)

        let check = try s.regressions(at: Self.hours(24))
        #expect(check["status"]?.stringValue == "compared")
        #expect(check["candidateVersion"]?.stringValue == "1.1")
        let found = Self.regressionFindings(check)
        try #require(found.count == 1, "\(found)")
        let f = found[0]
        #expect(f["category"]?.stringValue == "invite")
        #expect(f["action"]?.stringValue == "accept")
        #expect(f["appVersion"]?.stringValue == "1.1")
        #expect(f["baselineVersion"]?.stringValue == "1.0")
        let detected = try #require(f["detectedAt"]?.stringValue.flatMap { Timestamp(iso8601: $0) })
        #expect(detected > Self.release && detected <= Self.hours(24), "detected at \(detected)")
        print("broken button (10% → 0.5%, 125 deliveries an hour a side): detected \(Double(detected.microseconds - Self.release.microseconds) / 3.6e9) hours after the release")
        let candidateRate = try #require(f["candidateRate"]?.numberValue?.double)
        let baselineRate = try #require(f["baselineRate"]?.numberValue?.double)
        #expect(candidateRate < 0.02 && baselineRate > 0.07)
        #expect((f["candidateDelivered"]?.numberValue?.integer ?? 0) >= 100 && (f["baselineDelivered"]?.numberValue?.integer ?? 0) >= 100)
        let difference = try #require(f["difference"]?.numberValue?.double)
        let upper = try #require(f["differenceUpper"]?.numberValue?.double)
        let lower = try #require(f["differenceLower"]?.numberValue?.double)
        let minimumDrop = try #require(f["minimumDrop"]?.numberValue?.double)
        #expect(lower < difference && difference < upper && upper < -minimumDrop)
        #expect(f["pooledDifference"]?.numberValue?.double != nil)
        // The working buttons, opens and dismissals are fine or still gathering data, never flagged.
        for outcome in check["series"]?.arrayValue ?? [] where outcome["action"]?.stringValue != "accept" {
            #expect(outcome["status"]?.stringValue != "flagged", "\(outcome)")
        }
        #expect(Self.series(check, "invite", "action", action: "decline")?["status"]?.stringValue == "fine")

        // The same finding in the list of every family, and as an error.
        let all = try s.findings(at: Self.hours(24))
        let listed = (all["findings"]?.arrayValue ?? []).filter { $0["kind"]?.stringValue == "engagement_regression" }
        #expect(listed.count == 1 && listed.first?["severity"]?.stringValue == "error")
        #expect(listed.first?["detectedAt"]?.stringValue == f["detectedAt"]?.stringValue)

        // The HTML engagement report charts the flagged outcome: candidate and baseline, day by day.
        let html = try s.server.client().get("/report?app=broken&from=\(Self.hours(-24).description)&to=\(Self.hours(48).description)",
                                             key: s.app.readKey.text)
        #expect(html.status == 200)
        #expect(html.text.contains("<section class=\"tapwire-regressions\">"))
        #expect(html.text.contains("chart chart-regression"))
        #expect(html.text.contains("class=\"candidate\"") && html.text.contains("class=\"baseline\""))
        #expect(html.text.contains("invite · accept: 1.1 against 1.0"))
        s.server.stop()
    }

    /// A version adopted mostly on iPadOS, where every rate is 55% of iPhone's: the pooled
    /// difference makes every button look broken, the stratified one does not, and nothing is
    /// flagged at any look.
    @Test func aMixShiftAcrossPlatformsRaisesNoAlarm() throws {
        let s = try Self.scenario("mix")
        try s.manifest("1.0")
        try s.manifest("1.1")
        try s.post(Self.traffic("1.0", from: Self.hours(-24), hours: 72, iPadShare: 0.15, iPadFactor: 0.55)
                   + Self.traffic("1.1", from: Self.release, hours: 48, iPadShare: 0.8, iPadFactor: 0.55), seed: 2)
        for look in [12.0, 24, 36, 48] {
            let check = try s.regressions(at: Self.hours(look))
            #expect(check["status"]?.stringValue == "compared")
            #expect(Self.regressionFindings(check).isEmpty, "a finding at hour \(look): \(Self.regressionFindings(check))")
        }
        let opens = try #require(Self.series(try s.regressions(at: Self.hours(48)), "invite", "opens"))
        let pooled = try #require(opens["pooledDifference"]?.numberValue?.double)
        let stratified = try #require(opens["difference"]?.numberValue?.double)
        // Opens: 20% on iPhone, 11% on iPad. The pooled difference is the mix's (about -6 points).
        #expect(pooled < -0.04, "pooled \(pooled)")
        #expect(abs(stratified) < 0.02, "stratified \(stratified)")
        s.server.stop()
    }

    /// Replayed looks: `at` evaluates as of the instant, using only events before it. The finding
    /// appears at its detectedAt and not an hour before, keeps that detectedAt at every later
    /// look, an instant within an hour gives that hour's look, and events posted later do not
    /// change a past look. `tapwire alerts --at` agrees, with its exit codes.
    @Test func replayedLooksWithAt() throws {
        let s = try Self.scenario("replay")
        try s.manifest("1.0")
        try s.manifest("1.1")
        var broken = Self.baseRates
        broken["accept"] = 0.0
        try s.post(Self.traffic("1.0", from: Self.hours(-12), hours: 48) + Self.traffic("1.1", from: Self.release, hours: 30, invite: broken),
                   seed: 3)
        var firstLook: Int?
        var detectedAt: String?
        for hour in 1...30 {
            let found = Self.regressionFindings(try s.regressions(at: Self.hours(Double(hour))))
            if found.isEmpty {
                #expect(firstLook == nil, "the finding vanished at hour \(hour)")
                continue
            }
            if firstLook == nil {
                firstLook = hour
                detectedAt = found[0]["detectedAt"]?.stringValue
            }
            #expect(found[0]["detectedAt"]?.stringValue == detectedAt, "detectedAt moved at hour \(hour)")
        }
        let first = try #require(firstLook, "never flagged in 30 hours")
        print("replay: the finding first appears at the look of hour \(first) after the release")
        #expect(detectedAt.flatMap { Timestamp(iso8601: $0) } == Self.hours(Double(first)))
        // Within the hour: the look at its start.
        let within = try s.regressions(at: Self.hours(Double(first) - 0.5))
        #expect(Self.regressionFindings(within).isEmpty)
        #expect(within["looksEnd"]?.stringValue.flatMap { Timestamp(iso8601: $0) } == Self.hours(Double(first - 1)))

        // Later events (the button fixed, a flood of taps after the instant) leave the past look as it was.
        let before = try s.regressions(at: Self.hours(Double(first)))
        try s.post(Self.traffic("1.1", from: Self.hours(30), hours: 10, perHour: 400, invite: Self.baseRates.mapValues { $0 * 3 }), seed: 4)
        let after = try s.regressions(at: Self.hours(Double(first)))
        #expect(after == before)

        // The command line, as cron runs it: nothing before the detection (exit 0), the finding from then on (exit 1).
        let url = s.server.database.url
        let early = try TapwireBinary.run(["alerts", "--app", "replay", "--at", Self.hours(Double(first - 1)).description,
                                           "--database-url", url])
        #expect(early.status == 0, "\(early.output)")
        #expect(early.output.contains("Release regressions as of"))
        let late = try TapwireBinary.run(["alerts", "--app", "replay", "--at", Self.hours(Double(first)).description, "--format", "json",
                                          "--database-url", url])
        #expect(late.status == 1, "\(late.output)")
        let json = try #require(late.output.firstIndex(of: "{").map { try JSONParser().parse(Array(late.output[$0...].utf8)) })
        let listed = (json["findings"]?.arrayValue ?? []).filter { $0["kind"]?.stringValue == "engagement_regression" }
        #expect(listed.map { $0["detectedAt"]?.stringValue } == [detectedAt])
        let bad = try TapwireBinary.run(["alerts", "--app", "replay", "--at", "yesterday", "--database-url", url])
        #expect(bad.status == 2 && bad.output.contains("--at must be a duration back from now"))
        s.server.stop()
    }

    /// A new version with little data gets no finding, and says why, per series.
    @Test func aNewVersionWithTooLittleDataGetsNoFindingAndSaysSo() throws {
        let s = try Self.scenario("sparse")
        try s.manifest("1.0")
        try s.manifest("1.1")
        var broken = Self.baseRates
        broken["accept"] = 0.0
        try s.post(Self.traffic("1.0", from: Self.hours(-24), hours: 48) + Self.traffic("1.1", from: Self.release, hours: 12, perHour: 5, invite: broken),
                   seed: 5)
        let check = try s.regressions(at: Self.hours(24))
        #expect(check["status"]?.stringValue == "compared")
        #expect(Self.regressionFindings(check).isEmpty)
        let accept = try #require(Self.series(check, "invite", "action", action: "accept"))
        #expect(accept["status"]?.stringValue == "not_enough_data")
        #expect(accept["reason"]?.stringValue == "below_minimum_deliveries")
        #expect(accept["candidateDelivered"]?.numberValue?.integer == 60) // 5 deliveries an hour (4 iOS, 1 iPadOS) for 12 hours
        #expect(accept["detail"]?.stringValue?.contains("fewer than 100 delivered") == true)
        let table = try s.server.client().get("/v1/reports/regressions?app=sparse&at=\(Self.hours(24).description)&format=table",
                                              key: s.app.readKey.text)
        #expect(table.text.contains("not enough data") && table.text.contains("0 regressions flagged"))
        // Only one version: no comparison, and why.
        let alone = try s.regressions(at: Self.hours(-1))
        #expect(alone["status"]?.stringValue == "no_comparison")
        #expect(alone["reason"]?.stringValue?.contains("only version 1.0 delivered") == true)
        s.server.stop()
    }

    /// Three versions live: the newest is the candidate, the two before it its pooled baseline.
    @Test func threeVersionsLiveAtOnce() throws {
        let s = try Self.scenario("three")
        for version in ["1.9", "1.10", "1.11"] { try s.manifest(version) }
        var broken = Self.messageRates
        broken["reply"] = 0.002
        // 1.10 is newer than 1.9 (versions compare number by number), 1.11 newer still.
        try s.post(Self.traffic("1.9", from: Self.hours(-24), hours: 72, perHour: 60)
                   + Self.traffic("1.10", from: Self.hours(-24), hours: 72, perHour: 60)
                   + Self.traffic("1.11", from: Self.release, hours: 48, perHour: 100, message: broken), seed: 6)
        let check = try s.regressions(at: Self.hours(36))
        #expect(check["candidateVersion"]?.stringValue == "1.11")
        #expect(check["baselineVersions"]?.arrayValue?.compactMap(\.stringValue) == ["1.10", "1.9"])
        let found = Self.regressionFindings(check)
        #expect(found.count == 2, "\(found)") // the reply action and, since every reply carries text, text replies
        for f in found {
            #expect(f["category"]?.stringValue == "message")
            #expect(f["baselineVersion"]?.stringValue == "1.10")
            #expect(f["baselineVersions"]?.arrayValue?.compactMap(\.stringValue) == ["1.10", "1.9"])
        }
        #expect(Set(found.compactMap { $0["outcome"]?.stringValue }) == ["action", "textReplies"])
        #expect(found.contains { $0["action"]?.stringValue == "reply" })
        s.server.stop()
    }

    /// A category no earlier version had is new, not a regression, however its buttons do.
    @Test func aCategoryNewInTheCandidateIsNotARegression() throws {
        let s = try Self.scenario("newcat")
        try s.manifest("1.0")
        try s.manifest("1.1", Self.categories + [("flash_sale", ["buy"], [], false)])
        try s.post(Self.traffic("1.0", from: Self.hours(-24), hours: 72)
                   + Self.traffic("1.1", from: Self.release, hours: 48)
                   + [TrafficPlan(category: "flash_sale", version: "1.1", from: Self.release, hours: 48, deliveriesPerHour: 100,
                                  rates: [SystemAction.open: 0.01, "buy": 0.001])], seed: 7)
        let check = try s.regressions(at: Self.hours(48))
        #expect(Self.regressionFindings(check).isEmpty)
        let flash = (check["series"]?.arrayValue ?? []).filter { $0["category"]?.stringValue == "flash_sale" }
        #expect(flash.count == 2)
        #expect(flash.allSatisfy { $0["status"]?.stringValue == "exempt" && $0["reason"]?.stringValue == "new_category" })
        #expect(Self.series(check, "invite", "opens")?["status"]?.stringValue == "fine")
        s.server.stop()
    }

    /// 1.1's manifest drops "decline": its taps fall to nothing by construction. That is a
    /// manifest change (info), never an engagement regression, and does not fail `tapwire alerts`.
    @Test func aManifestThatRemovedAnActionIsAManifestChange() throws {
        let s = try Self.scenario("removed")
        try s.manifest("1.0")
        try s.manifest("1.1", [("invite", ["accept"], [], true), Self.categories[1]])
        var withoutDecline = Self.baseRates
        withoutDecline["decline"] = nil
        try s.post(Self.traffic("1.0", from: Self.hours(-24), hours: 72) + Self.traffic("1.1", from: Self.release, hours: 48, invite: withoutDecline),
                   seed: 8)
        let check = try s.regressions(at: Self.hours(48))
        #expect(Self.regressionFindings(check).isEmpty)
        let decline = try #require(Self.series(check, "invite", "action", action: "decline"))
        #expect(decline["status"]?.stringValue == "exempt" && decline["reason"]?.stringValue == "manifest_change")
        let changes = (check["findings"]?.arrayValue ?? []).filter { $0["kind"]?.stringValue == "manifest_change" }
        #expect(changes.count == 1)
        #expect(changes.first?["action"]?.stringValue == "decline" && changes.first?["severity"]?.stringValue == "info")
        #expect(changes.first?["registeredBy"]?.arrayValue?.compactMap(\.stringValue) == ["1.0"])
        // Listed at info, absent at the default severity; the command line exits 0.
        #expect((try s.findings(at: Self.hours(48))["findings"]?.arrayValue ?? []).contains { $0["kind"]?.stringValue == "manifest_change" })
        #expect(try s.findings(at: Self.hours(48), minSeverity: "warning")["findings"]?.arrayValue?.isEmpty == true)
        let cli = try TapwireBinary.run(["alerts", "--app", "removed", "--at", Self.hours(48).description, "--database-url", s.server.database.url])
        #expect(cli.status == 0, "\(cli.output)")
        #expect(cli.output.contains("manifest_change") || cli.output.contains("exempt"))
        s.server.stop()
    }

    /// Two collectors with the webhook, each running the hourly check at start: the broken
    /// button is announced once, with its own alert id, and not again after a restart; both show
    /// it in /metrics as an active finding. Counted once both collectors' checks have completed
    /// and the outbox holds nothing unsent, so a second claim would have been delivered by then.
    @Test func theWebhookAnnouncesEachFindingExactlyOnceAcrossTwoCollectors() throws {
        let receiver = try WebhookReceiver()
        defer { receiver.stop() }
        // The traffic first, through a collector without a webhook and without the findings
        // monitor: its hourly look (as of 5 minutes ago) is the hour the hooked collectors look at
        // for most of each hour, and a look is stored once. Taken while the traffic arrived (its
        // first pass runs late on a busy machine, and the hour's look turns at each HH:05), it
        // would be served to them from part of the traffic, and nothing would be announced.
        let s = try Self.scenario("hooked") { $0.findingsMonitor = false }
        try s.manifest("1.0")
        try s.manifest("1.1")
        var broken = Self.baseRates
        broken["accept"] = 0.005
        try s.post(Self.traffic("1.0", from: Self.hours(-24), hours: 72) + Self.traffic("1.1", from: Self.release, hours: 48, invite: broken),
                   seed: 9)
        s.server.stop()
        let hooked: (inout CollectorConfiguration) -> Void = { c in
            fastAlerts(receiver.url)(&c)
            c.alertOptions.regressionDelaySeconds = 0
        }
        let first = try TestCollector(database: s.server.database, configure: hooked)
        let second = try TestCollector(database: s.server.database, configure: hooked)
        // Settled: each collector completed its release check (any finding it claimed is in the
        // outbox by then), and the outbox has nothing left to send (sent means the receiver had it).
        func checked(_ collector: TestCollector) -> Bool {
            (try? collector.client().get("/metrics").text.contains("tapwire_findings_checks_total{family=\"release_regression\"}")) == true
        }
        func settled(_ collectors: [TestCollector]) throws -> Bool {
            guard collectors.allSatisfy(checked) else { return false }
            let states = try s.server.database.query("SELECT state FROM finding_alerts").rows.map { $0.first ?? nil }
            return !states.isEmpty && states.allSatisfy { $0 == "sent" }
        }
        #expect(try eventually(timeout: 30) { try settled([first, second]) })
        let messages = receiver.messages
        #expect(messages.count == 1, "\(messages.map { $0.body?["text"]?.stringValue ?? "" })")
        let text = messages.first?.body?["text"]?.stringValue ?? ""
        #expect(text.contains("engagement_regression") && text.contains("*hooked*") && text.contains("`invite`") && text.contains("`accept`"))
        let key = FindingKey(appId: s.app.appId, appVersion: "1.1", kind: .engagementRegression, category: "invite", detail: "action:accept")
        #expect(messages.first?.alertId == key.description)
        let outbox = try s.server.database.query("SELECT kind, category, detail, state FROM finding_alerts").rows
        #expect(outbox.map { $0.compactMap { $0 } } == [["engagement_regression", "invite", "action:accept", "sent"]])
        let series = "tapwire_findings_active{app=\"hooked\",kind=\"engagement_regression\",severity=\"error\",category=\"invite\",action=\"accept\"} 1"
        for collector in [first, second] {
            #expect(try collector.client().get("/metrics").text.contains(series))
        }
        // The collectors stored one look per hour (one hour, or two if it ended between their
        // starts), and a restart reads them rather than storing them again.
        func looks() throws -> [[String?]] {
            try s.server.database.query("SELECT looks_end::text, taken_at::text FROM regression_looks WHERE app_id = $1::bigint ORDER BY 1",
                                        [String(s.app.appId)]).rows
        }
        let stored = try looks()
        #expect(!stored.isEmpty && Set(stored.map { $0[0] }).count == stored.count, "\(stored)")

        // A restart checks again at once: nothing new to announce.
        first.stop()
        let restarted = try TestCollector(database: s.server.database, configure: hooked)
        #expect(try eventually(timeout: 30) { try settled([restarted]) })
        #expect(try restarted.client().get("/metrics").text.contains(series))
        #expect(receiver.messages.count == 1)
        #expect(Array(try looks().prefix(stored.count)) == stored)
        restarted.stop()
        second.stop()
    }
}
