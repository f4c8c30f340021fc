import Foundation
import Testing
import TapwireCore
import TapwireServer
import TapwireStore
import TapwireTestSupport

/// The release-regression check's stored looks (migration 0105, docs/regressions.md, "Stored
/// looks"): taken once per app and hour by the collectors' code (`RegressionLookStore.take`, what
/// FindingMonitor runs), served to readers of the current look through `GET /v1/findings`,
/// `GET /v1/reports/regressions` and `tapwire alerts`, and recomputed on `fresh=true` / `--fresh`
/// and on every replay.
///
/// The looks are taken for the current hour and the next one, so a test that runs across an
/// hour's end still reads a stored look. The collectors' own monitor takes looks 30 days back
/// (`regressionDelaySeconds`), so it never writes the hours the tests read.
@Suite(.serialized) struct RegressionLookTests {
    typealias Scenario = ReleaseRegressionScenarioTests.Scenario
    static func hours(_ n: Double) -> Timestamp { ReleaseRegressionScenarioTests.hours(n) }
    static let hour = RollupDeltas.microsecondsPerHour

    /// A collector whose monitor stays off the hours the tests read.
    static func scenario(_ name: String) throws -> Scenario {
        try ReleaseRegressionScenarioTests.scenario(name) { c in c.alertOptions.regressionDelaySeconds = 30 * 86_400 }
    }

    /// Only 1.0 has delivered: the look says there is nothing to compare.
    static func oneVersion(_ s: Scenario) throws {
        try s.manifest("1.0")
        try s.manifest("1.1")
        try s.post(ReleaseRegressionScenarioTests.traffic("1.0", from: hours(-24), hours: 72), seed: 21)
    }

    /// 1.1 arrives with its accept button broken: a computed look flags it.
    static func brokenRelease(_ s: Scenario) throws {
        var broken = ReleaseRegressionScenarioTests.baseRates
        broken["accept"] = 0.005
        try s.post(ReleaseRegressionScenarioTests.traffic("1.1", from: ReleaseRegressionScenarioTests.release, hours: 48, invite: broken), seed: 22)
    }

    /// The collectors' looks of this hour and the next, with `configuration`; returns this hour's.
    @discardableResult
    static func take(_ s: Scenario, configuration: RegressionConfiguration = .default) throws -> RegressionCheck {
        try takeBoth(s, configuration: configuration).current
    }

    /// The looks of this hour and the next: a read after the hour's end is served the next one.
    static func takeBoth(_ s: Scenario, configuration: RegressionConfiguration = .default) throws
        -> (current: RegressionCheck, next: RegressionCheck) {
        let connection = try s.server.database.connect()
        defer { connection.close() }
        let now = RollupDeltas.floor(Timestamp.now.microseconds, hour)
        let store = RegressionLookStore(configuration: configuration)
        let current = try store.take(appId: s.app.appId, asOf: Timestamp(microseconds: now), on: connection)
        let next = try store.take(appId: s.app.appId, asOf: Timestamp(microseconds: now + hour), on: connection)
        return (current, next)
    }

    /// A look stored while only 1.0 has delivered, then the broken release: what the current
    /// look shows depends on whether the stored look still applies.
    static func storedThenBroken(_ name: String) throws -> Scenario {
        let s = try scenario(name)
        try oneVersion(s)
        try take(s)
        try brokenRelease(s)
        return s
    }

    static func get(_ s: Scenario, _ path: String) throws -> JSONValue {
        let r = try s.server.client().get(path, key: s.app.readKey.text)
        #expect(r.status == 200, "\(path): \(r.text)")
        return try #require(r.json)
    }

    static func regressionFindings(_ check: JSONValue?) -> [JSONValue] {
        (check?["findings"]?.arrayValue ?? []).filter { $0["kind"]?.stringValue == "engagement_regression" }
    }

    static func cliJSON(_ output: String) throws -> JSONValue {
        try #require(output.firstIndex(of: "{").map { try JSONParser().parse(Array(output[$0...].utf8)) }, "\(output)")
    }

    /// After the look is taken, the broken release arrives. The current look still shows what
    /// was stored, and says so; `fresh=true` / `--fresh` and an explicit `at` / `--at` compute,
    /// and flag the button.
    @Test func aStoredLookIsServedUntilAFreshOneIsAskedFor() throws {
        let s = try Self.scenario("stored")
        try Self.oneVersion(s)
        let (taken, next) = try Self.takeBoth(s)
        #expect(taken.look?.source == "stored")
        guard case .noComparison = taken.evaluation else { Issue.record("the look compared: \(taken.evaluation)"); return }
        try Self.brokenRelease(s)
        // The reads below are served this hour's look, or the next hour's if the hour ended since
        // (the two are taken a few ms apart, and either is the collectors' stored look).
        let takenAt = [taken, next].compactMap { $0.look?.takenAt.map { Timestamp(microseconds: $0) } }
        #expect(takenAt.count == 2, "both looks stored")

        // HTTP, the current look: the stored one.
        let current = try Self.get(s, "/v1/findings?app=stored&minSeverity=info")
        #expect(current["regressions"]?["status"]?.stringValue == "no_comparison")
        #expect(current["regressions"]?["lookSource"]?.stringValue == "stored")
        #expect(takenAt.map(\.description).contains(current["regressions"]?["lookTakenAt"]?.stringValue ?? "none"),
                "\(String(describing: current["regressions"]?["lookTakenAt"])) is neither stored look's \(takenAt)")
        let alone = try Self.get(s, "/v1/reports/regressions?app=stored")
        #expect(alone["lookSource"]?.stringValue == "stored" && alone["status"]?.stringValue == "no_comparison")
        let table = try s.server.client().get("/v1/reports/regressions?app=stored&format=table", key: s.app.readKey.text)
        #expect(table.text.contains("by the collectors' hourly check"), "\(table.text)")

        // The HTML report through today (its end, the next UTC midnight, is never before the hour
        // it is read in) shows the stored look; one that ended earlier replays its end.
        let today = String(Timestamp.now.iso8601(fractionDigits: 0).prefix(10))
        let report = try s.server.client().get("/report?app=stored&from=\(String(Self.hours(-24).description.prefix(10)))&to=\(today)",
                                               key: s.app.readKey.text)
        #expect(report.status == 200 && report.text.contains("by the collectors&#39; hourly check"),
                "\(report.text.components(separatedBy: "tapwire-look").dropFirst().first?.prefix(300) ?? "no look line")")
        let past = try s.server.client().get("/report?app=stored&from=\(Self.hours(-24).description)&to=\(Self.hours(24).description)",
                                             key: s.app.readKey.text)
        #expect(past.status == 200 && past.text.contains("computed now"), "\(past.text.suffix(2000))")

        // HTTP, fresh and replayed: computed, with the broken button.
        for path in ["/v1/findings?app=stored&fresh=true", "/v1/findings?app=stored&at=\(Timestamp.now.description)"] {
            let computed = try Self.get(s, path)
            #expect(computed["regressions"]?["lookSource"]?.stringValue == "computed", "\(path)")
            #expect(computed["regressions"]?["status"]?.stringValue == "compared", "\(path)")
            #expect(Self.regressionFindings(computed).count == 1, "\(path): \(Self.regressionFindings(computed))")
        }
        let bad = try s.server.client().get("/v1/findings?app=stored&fresh=maybe", key: s.app.readKey.text)
        #expect(bad.status == 400 && bad.json?["error"]?["message"]?.stringValue == "fresh must be true or false")
        let both = try s.server.client().get("/v1/findings?app=stored&fresh=true&at=1h", key: s.app.readKey.text)
        #expect(both.status == 400 && both.json?["error"]?["code"]?.stringValue != nil)

        // The command line: the stored look (exit 0), --fresh and --at compute (exit 1, the finding).
        let url = s.server.database.url
        let stored = try TapwireBinary.run(["alerts", "--app", "stored", "--database-url", url])
        #expect(stored.status == 0, "\(stored.output)")
        #expect(takenAt.contains { stored.output.contains("taken \($0.iso8601(fractionDigits: 0)) by the collectors' hourly check") },
                "\(stored.output)")
        let storedJSON = try Self.cliJSON(try TapwireBinary.run(["alerts", "--app", "stored", "--format", "json", "--database-url", url]).output)
        #expect(storedJSON["regressions"]?["lookSource"]?.stringValue == "stored")
        let fresh = try TapwireBinary.run(["alerts", "--app", "stored", "--fresh", "--format", "json", "--database-url", url])
        #expect(fresh.status == 1, "\(fresh.output)")
        #expect(try Self.cliJSON(fresh.output)["regressions"]?["lookSource"]?.stringValue == "computed")
        let replay = try TapwireBinary.run(["alerts", "--app", "stored", "--at", Timestamp.now.description, "--database-url", url])
        #expect(replay.status == 1 && replay.output.contains("computed now"), "\(replay.output)")
        let conflicting = try TapwireBinary.run(["alerts", "--app", "stored", "--fresh", "--at", "1h", "--database-url", url])
        #expect(conflicting.status == 2 && conflicting.output.contains("--fresh"), "\(conflicting.output)")
        s.server.stop()
    }

    /// `tapwire rollups rebuild`, of the app and then of every app, stops the stored look being
    /// served (migration 0115): the current look is computed from the rebuilt rollups at once,
    /// and a look the collectors take after the rebuild is served again.
    @Test func aRebuildStopsTheStoredLookBeingServed() throws {
        let s = try Self.storedThenBroken("rebuilt")
        let url = s.server.database.url
        func current() throws -> JSONValue? { try Self.get(s, "/v1/findings?app=rebuilt&minSeverity=info")["regressions"] }
        #expect(try current()?["lookSource"]?.stringValue == "stored")
        #expect(try current()?["status"]?.stringValue == "no_comparison")

        for (n, scope) in [["--app", "rebuilt"], []].enumerated() {
            let rebuild = try TapwireBinary.run(["rollups", "rebuild"] + scope + ["--database-url", url])
            #expect(rebuild.status == 0, "\(rebuild.output)")
            let after = try current()
            #expect(after?["lookSource"]?.stringValue == "computed", "rebuild \(n): \(String(describing: after))")
            #expect(after?["status"]?.stringValue == "compared", "rebuild \(n)")
            let cli = try Self.cliJSON(try TapwireBinary.run(["alerts", "--app", "rebuilt", "--format", "json", "--database-url", url]).output)
            #expect(cli["regressions"]?["lookSource"]?.stringValue == "computed", "rebuild \(n)")
            #expect(Self.regressionFindings(cli["regressions"]).count == 1, "rebuild \(n): \(Self.regressionFindings(cli["regressions"]))")

            // The collectors' next look (this hour's taken again) carries the rebuild and is served.
            try s.server.database.query("DELETE FROM regression_looks WHERE app_id = $1::bigint", [String(s.app.appId)])
            let retaken = try Self.take(s)
            #expect(retaken.look?.source == "stored")
            #expect(try current()?["lookSource"]?.stringValue == "stored", "rebuild \(n)")
            #expect(try current()?["status"]?.stringValue == "compared", "rebuild \(n)")
        }
        s.server.stop()
    }

    /// A stored look applies only to the settings and manifests it was taken with: another
    /// minimum drop computes, and so does every read after a manifest that changes what is in
    /// force is uploaded (a repeat post of the same manifest does not).
    @Test func anotherConfigurationOrAnUploadedManifestComputes() throws {
        let s = try Self.storedThenBroken("fingerprint")
        let url = s.server.database.url
        let stored = try TapwireBinary.run(["alerts", "--app", "fingerprint", "--format", "json", "--database-url", url])
        #expect(try Self.cliJSON(stored.output)["regressions"]?["lookSource"]?.stringValue == "stored", "\(stored.output)")
        let otherDrop = try TapwireBinary.run(["alerts", "--app", "fingerprint", "--regression-min-drop", "5", "--format", "json",
                                               "--database-url", url])
        #expect(otherDrop.status == 1, "\(otherDrop.output)")
        #expect(try Self.cliJSON(otherDrop.output)["regressions"]?["lookSource"]?.stringValue == "computed")

        // The same manifest again: the look still applies.
        try s.manifest("1.1")
        #expect(try Self.get(s, "/v1/findings?app=fingerprint")["regressions"]?["lookSource"]?.stringValue == "stored")
        // 1.1 gains a category: every reader computes.
        try s.manifest("1.1", ReleaseRegressionScenarioTests.categories + [("flash_sale", ["buy"], [], false)])
        let after = try Self.get(s, "/v1/findings?app=fingerprint&minSeverity=info")
        #expect(after["regressions"]?["lookSource"]?.stringValue == "computed")
        #expect(after["regressions"]?["status"]?.stringValue == "compared")
        #expect(Self.regressionFindings(after).count == 1, "\(Self.regressionFindings(after))")
        s.server.stop()
    }

    /// Two collectors' takes of one hour on their own connections: the second reads the first's
    /// look (events posted between them do not change it, and it is not computed again), the
    /// table holds one row per hour, and the stored look reads back equal to the check computed.
    @Test func theCollectorsTakeEachHoursLookOnce() throws {
        let s = try Self.scenario("once")
        try Self.oneVersion(s)
        try Self.brokenRelease(s)
        let hour = Timestamp(microseconds: RollupDeltas.floor(Timestamp.now.microseconds, Self.hour))
        let first = try s.server.database.connect(), second = try s.server.database.connect()
        defer { first.close(); second.close() }
        let store = RegressionLookStore()
        let taken = try store.take(appId: s.app.appId, asOf: hour, on: first)
        let flagged = try #require(taken.comparison?.findings, "\(taken.evaluation)")
        #expect(flagged.count == 1)
        // The 1.1 button fixed, at four times the volume, and 1.0 beside it: a new computation would see it.
        try s.post(ReleaseRegressionScenarioTests.traffic("1.0", from: Self.hours(48), hours: 12)
                   + ReleaseRegressionScenarioTests.traffic("1.1", from: Self.hours(48), hours: 12, perHour: 400), seed: 23)
        let again = try store.take(appId: s.app.appId, asOf: hour, on: second)
        #expect(again.look == taken.look)
        #expect(again.evaluation == taken.evaluation && again.days == taken.days && again.daysRead == taken.daysRead
                && again.looksEnd == taken.looksEnd)
        #expect(!again.days.isEmpty)
        let computed = try RegressionStore().check(appId: s.app.appId, asOf: hour, on: second)
        #expect(computed.evaluation != taken.evaluation)
        let rows = try s.server.database.query("SELECT count(*) FROM regression_looks WHERE app_id = $1::bigint AND looks_end = $2::timestamptz",
                                               [String(s.app.appId), hour.description]).scalar
        #expect(rows == "1")
        s.server.stop()
    }

    /// Storing a look deletes the app's looks that ended more than `historyHours` before it, and
    /// no other app's.
    @Test func theHistoryIsBounded() throws {
        let s = try Self.scenario("bounded")
        try Self.oneVersion(s)
        let other = try s.server.database.createApp("bounded-other")
        let connection = try s.server.database.connect()
        defer { connection.close() }
        let store = RegressionLookStore()
        let now = RollupDeltas.floor(Timestamp.now.microseconds, Self.hour)
        let keep = RegressionLookStore.historyHours
        try store.take(appId: other.appId, asOf: Timestamp(microseconds: now - (keep + 10) * Self.hour), on: connection)
        for back in [keep + 10, keep + 1, keep, 3, 0] {
            try store.take(appId: s.app.appId, asOf: Timestamp(microseconds: now - back * Self.hour), on: connection)
        }
        func stored(_ appId: Int64) throws -> [Int64] {
            // (Not the monitor's looks, 30 days back.)
            try s.server.database.query("""
                SELECT (extract(epoch FROM looks_end) * 1000000)::bigint FROM regression_looks
                WHERE app_id = $1::bigint AND looks_end >= $2::timestamptz ORDER BY 1
                """, [String(appId), Timestamp(microseconds: now - (keep + 20) * Self.hour).description]).rows.compactMap { $0[0].flatMap { Int64($0) } }
        }
        #expect(try stored(s.app.appId) == [keep, 3, 0].map { now - $0 * Self.hour })
        #expect(try stored(other.appId) == [now - (keep + 10) * Self.hour])
        s.server.stop()
    }
}
