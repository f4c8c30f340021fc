import Foundation
import TapwireCore

/// The mismatch benchmark of `make bench`: detection over 30 days of 10M events from the
/// rollups, against the same detection input computed from the raw events (the baseline), and
/// what the rollup statement costs group commit (sql/fresh/ with and without it).
public struct MismatchBenchmark: Sendable {
    public struct Options: Sendable {
        public var events = 10_000_000
        public var days = 30
        public var repeats = 7
        public var baselineRepeats = 3
        public var commitGroups = 20
        public var eventsPerGroup = 10_000
        public init() {}
    }

    public struct Result: Sendable {
        public var events: Int
        public var days: Int
        public var hourlyRows: Int
        public var dailyRows: Int
        public var findings: Int
        public var loadSeconds: Double
        /// Medians, in milliseconds.
        public var detection30dMs: Double
        public var detection24hMs: Double
        public var rawScan30dMs: Double
        /// Group commit of `commitGroups` x `eventsPerGroup` fresh events, events a second.
        public var commitWithRollups: Double
        public var commitWithoutRollups: Double

        public var json: JSONValue {
            .object([
                ("benchmark", "mismatch_detection"), ("events", .int(events)), ("days", .int(days)),
                ("hourlyRollupRows", .int(hourlyRows)), ("dailyRollupRows", .int(dailyRows)), ("findings", .int(findings)),
                ("loadSeconds", .double(loadSeconds)),
                ("detection30dMs", .double(detection30dMs)), ("detection24hMs", .double(detection24hMs)),
                ("rawScanBaseline30dMs", .double(rawScan30dMs)), ("speedupVsRawScan", .double(rawScan30dMs / detection30dMs)),
                ("commitEventsPerSecondWithRollups", .double(commitWithRollups)),
                ("commitEventsPerSecondWithoutRollups", .double(commitWithoutRollups)),
                ("commitThroughputRatio", .double(commitWithRollups / commitWithoutRollups)),
            ])
        }
    }

    public var options: Options
    public init(options: Options = Options()) { self.options = options }

    static let versions = ["3.0", "3.1", "3.2", "3.3", "3.4", "3.5"]

    /// Registered by 3.1-3.5 (3.0 never posted a manifest): 20 categories of 3 actions each.
    static func manifest(_ version: String) -> Manifest {
        Manifest(appVersion: version, categories: (0..<20).map { c in
            ManifestCategory(identifier: String(format2("cat_", c)), options: c % 2 == 0 ? ["customDismissAction"] : [],
                             actions: (0..<3).map { ManifestAction(identifier: "act_\($0)", textInput: $0 == 0 && c % 5 == 0) })
        })
    }

    static func format2(_ prefix: String, _ n: Int) -> String { prefix + (n < 10 ? "0" : "") + String(n) }

    public func run(url: String, log: (String) -> Void) throws -> Result {
        let connection = try PostgresConnection(url: url, applicationName: "tapwire-bench")
        defer { connection.close() }
        try Migrator().migrate(connection)
        let appId = Int64(try connection.query("INSERT INTO apps (name) VALUES ('bench-mismatch-' || floor(random() * 1e9)::bigint) RETURNING app_id").scalar ?? "") ?? 0
        for version in Self.versions.dropFirst() { _ = try ManifestStore().store(Self.manifest(version), appId: appId, on: connection) }

        let now = Timestamp.now
        let start = now.adding(seconds: -Double(options.days) * 86_400)
        try connection.query(EmbeddedSQL.ensurePartitions, [CivilCalendar.isoDate(start.utcDay - 1), CivilCalendar.isoDate(now.utcDay + 1)])
        let loadStart = monotonicNanoseconds()
        log("loading \(options.events) events over \(options.days) days")
        // Deterministic shapes from the row number: 20 registered categories, a case mismatch, a
        // near miss, 30 unknown ones; 6 versions (one without manifest); 3 platforms; delivered,
        // response (3 actions, open, dismiss, an unregistered one) and backend `sent` events.
        let chunk = 1_000_000
        var loaded = 0
        while loaded < options.events {
            let n = min(chunk, options.events - loaded)
            try connection.query(Self.generate, [String(appId), String(loaded), String(n), String(options.events),
                                                 start.description, String(options.days * 86_400)])
            loaded += n
        }
        try connection.executeScript(Self.rebuildRollups)
        try connection.query("ANALYZE events")
        try connection.query("ANALYZE mismatch_usage_hourly")
        try connection.query("ANALYZE mismatch_usage_daily")
        let loadSeconds = Double(monotonicNanoseconds() - loadStart) / 1e9
        let hourly = Int(try connection.query("SELECT count(*) FROM mismatch_usage_hourly WHERE app_id = $1::bigint", [String(appId)]).scalar ?? "") ?? 0
        let daily = Int(try connection.query("SELECT count(*) FROM mismatch_usage_daily WHERE app_id = $1::bigint", [String(appId)]).scalar ?? "") ?? 0
        log("loaded in \(Int(loadSeconds)) s: \(hourly) hourly and \(daily) daily rollup rows")

        let store = MismatchStore()
        let since30 = start
        var findings = 0
        let detection30 = try median(options.repeats) {
            findings = try store.report(appId: appId, appName: "bench", since: since30, until: now, on: connection).findings.count
        }
        let detection24 = try median(options.repeats) {
            _ = try store.report(appId: appId, appName: "bench", since: now.adding(seconds: -86_400), until: now, on: connection)
        }
        // Baseline: the same detection input straight from the raw events, then the same rules.
        var rawTotal: Int64 = 0
        var rawFindings = 0
        let raw = try median(options.baselineRepeats) {
            let rows = try connection.query(Self.rawUsage, [String(appId), MismatchWindow(since: since30, until: now).hourStart.description,
                                                            now.description]).rows
            let usage = try MismatchStore.parseUsage(rows)
            rawTotal = usage.reduce(0) { $0 + $1.count }
            let manifests = try ManifestStore().currentManifests(appId: appId, on: connection)
            rawFindings = MismatchDetector().findings(usage: usage, manifests: manifests).count
        }
        let rollupTotal = try store.usage(appId: appId, since: since30, until: now, on: connection).reduce(0) { $0 + $1.count }
        guard rawTotal == rollupTotal, rawFindings == findings else {
            throw DatabaseError(.unexpectedResult, "rollups (\(rollupTotal) events, \(findings) findings) disagree with the raw events (\(rawTotal), \(rawFindings))")
        }
        log("detection 30d \(fmt(detection30)) ms, 24h \(fmt(detection24)) ms; raw scan 30d \(fmt(raw)) ms")

        let (with, without) = try commitThroughput(url: url, appId: appId, log: log)
        return Result(events: options.events, days: options.days, hourlyRows: hourly, dailyRows: daily, findings: findings,
                      loadSeconds: loadSeconds, detection30dMs: detection30, detection24hMs: detection24, rawScan30dMs: raw,
                      commitWithRollups: with, commitWithoutRollups: without)
    }

    /// Events a second through the group-commit steps (EventWriter's: COPY to staging, claim
    /// ids, COPY into events, every sql/fresh statement, COMMIT), and through the same steps
    /// without the mismatch statement (sql/fresh/2x_*), alternating runs so drift hits both.
    func commitThroughput(url: String, appId: Int64, log: (String) -> Void) throws -> (Double, Double) {
        let connection = try PostgresConnection(url: url, applicationName: "tapwire-bench")
        defer { connection.close() }
        try connection.query(EmbeddedSQL.createStaging)
        let all = EmbeddedSQL.freshRowStatements.map(\.sql)
        let others = EmbeddedSQL.freshRowStatements.filter { !$0.name.contains("/2") && !$0.name.hasPrefix("2") }.map(\.sql)
        guard others.count < all.count else {
            throw DatabaseError(.unexpectedResult, "no mismatch statement in sql/fresh to compare against")
        }
        var rng = SeededGenerator(seed: 2024)
        let now = Timestamp.now
        var seconds = [0.0, 0.0]
        let categories = (0..<20).map { Self.format2("cat_", $0) } + ["Cat_03", "cat07x", "promo"]
        for group in 0..<(options.commitGroups * 2) {
            let events = (0..<options.eventsPerGroup).map { i -> Event in
                // As live ingestion sees them: events of the last few minutes.
                let t = now.adding(seconds: -Double(rng.next() % 300))
                let category = categories[Int(rng.next() % UInt64(categories.count))]
                let response = i % 4 == 0
                return Event(eventId: .v7(at: t, using: &rng), type: response ? .response : .delivered, deviceTime: t, category: category,
                             actionIdentifier: response ? "act_\(rng.next() % 3)" : nil, categoryRegistered: true)
            }
            let batch = StagedBatch(appId: appId, receivedAt: now, context: DeviceContext(appVersion: Self.versions[group % 6], platform: "iOS"),
                                    events: events)
            let staged = EventCopyRows.encode([batch])
            let rows = EventCopyRows.encode([batch], withSeq: false)
            let begin = monotonicNanoseconds()
            try connection.query("BEGIN")
            try connection.copyIn(EmbeddedSQL.copyStaging, data: staged)
            try connection.query(EmbeddedSQL.claimEventIds)
            try connection.copyIn(EmbeddedSQL.copyEvents, data: rows)
            for statement in group % 2 == 0 ? all : others { try connection.query(statement) }
            try connection.query("COMMIT")
            seconds[group % 2] += Double(monotonicNanoseconds() - begin) / 1e9
        }
        let total = Double(options.commitGroups * options.eventsPerGroup)
        let result = (total / seconds[0], total / seconds[1])
        log("group commit: \(Int(result.0)) events/s with the mismatch rollups, \(Int(result.1)) without")
        return result
    }

    private func median(_ n: Int, _ body: () throws -> Void) throws -> Double {
        var times: [Double] = []
        for _ in 0..<max(1, n) {
            let begin = monotonicNanoseconds()
            try body()
            times.append(Double(monotonicNanoseconds() - begin) / 1e6)
        }
        return times.sorted()[times.count / 2]
    }

    private func fmt(_ ms: Double) -> String { String(Int(ms.rounded())) }

    /// $1 app, $2 first row number, $3 rows, $4 total rows, $5 window start, $6 window seconds.
    static let generate = """
    INSERT INTO events (app_id, event_time, event_id, type, device_time, received_at, category, action_identifier,
                        category_registered, app_version, platform)
    SELECT $1::bigint, t, gen_random_uuid(), ty, t, t, cat, act, reg, ver, plat
    FROM (
        SELECT g,
               $5::timestamptz + make_interval(secs => (g::double precision / $4::bigint) * $6::bigint) AS t,
               (g * 7919) % 1000 AS r1, (g * 104729) % 1000 AS r2, (g * 1299709) % 1000 AS r3
        FROM generate_series($2::bigint, $2::bigint + $3::bigint - 1) g
    ) s,
    LATERAL (SELECT CASE WHEN r1 < 50 THEN 'sent' WHEN r1 < 300 THEN 'response' ELSE 'delivered' END::event_type AS ty) a,
    LATERAL (SELECT CASE WHEN ty = 'sent' THEN '' ELSE (ARRAY['3.0','3.1','3.2','3.3','3.4','3.5'])[1 + r2 % 6] END AS ver,
                    CASE WHEN r3 < 800 THEN 'iOS' WHEN r3 < 950 THEN 'iPadOS' ELSE 'watchOS' END AS plat,
                    CASE WHEN r2 < 970 THEN 'cat_' || lpad(((r3 * 7 + r2) % 20)::text, 2, '0')
                         WHEN r2 < 980 THEN 'Cat_03' WHEN r2 < 985 THEN 'cat07x'
                         ELSE 'unknown_' || (r3 % 30) END AS cat) b,
    LATERAL (SELECT CASE WHEN ty <> 'response' THEN NULL
                         WHEN r3 % 10 < 6 THEN 'act_' || (r3 % 3)
                         WHEN r3 % 10 < 8 THEN 'com.apple.UNNotificationDefaultActionIdentifier'
                         WHEN r3 % 10 < 9 THEN 'com.apple.UNNotificationDismissActionIdentifier'
                         ELSE 'act_legacy' END AS act,
                    CASE WHEN ty = 'sent' THEN NULL WHEN cat LIKE 'unknown%' THEN false WHEN r1 % 10 = 0 THEN NULL ELSE true END AS reg) c
    """

    /// The rollups rebuilt from the raw events with the same grouping as the commit CTEs.
    static let rebuildRollups = """
    TRUNCATE mismatch_usage_hourly, mismatch_usage_daily;
    INSERT INTO mismatch_usage_hourly (app_id, bucket, app_version, platform, type, category, action,
                                       category_registered, event_count, first_seen, last_seen)
    SELECT app_id, date_trunc('hour', event_time, 'UTC'), app_version, platform, type, category,
           coalesce(action_identifier, ''), CASE category_registered WHEN true THEN 1 WHEN false THEN 0 ELSE -1 END,
           count(*), min(event_time), max(event_time)
    FROM events GROUP BY 1, 2, 3, 4, 5, 6, 7, 8;
    INSERT INTO mismatch_usage_daily (app_id, day, app_version, platform, type, category, action,
                                      category_registered, event_count, first_seen, last_seen)
    SELECT app_id, (bucket AT TIME ZONE 'UTC')::date, app_version, platform, type, category, action,
           category_registered, sum(event_count), min(first_seen), max(last_seen)
    FROM mismatch_usage_hourly GROUP BY 1, 2, 3, 4, 5, 6, 7, 8;
    """

    /// The baseline: detection's input grouped straight from the raw events.
    static let rawUsage = """
    SELECT app_version, platform, type::text, category, coalesce(action_identifier, ''),
           CASE category_registered WHEN true THEN 1 WHEN false THEN 0 ELSE -1 END,
           count(*), (extract(epoch FROM min(event_time)) * 1000000)::bigint, (extract(epoch FROM max(event_time)) * 1000000)::bigint
    FROM events WHERE app_id = $1::bigint AND event_time >= $2::timestamptz AND event_time < $3::timestamptz
    GROUP BY 1, 2, 3, 4, 5, 6
    """
}
