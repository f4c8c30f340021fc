import Foundation
import Testing
import TapwireCore
import TapwireStore
import TapwireTestSupport

/// The Grafana dashboards in dashboards/grafana/: valid dashboard JSON, panels that read the
/// rollups (never the raw events), and every panel's SQL run, after Grafana's substitution,
/// against a real PostgreSQL seeded by `tapwire demo` plus a batch of mismatching events.
@Suite(.serialized) struct DashboardTests {
    static let directory = DeploymentTests.root + "/dashboards/grafana"

    /// The columns each SQL panel must return, by dashboard uid and panel title. A new panel
    /// needs a line here, so its SQL is run and its shape pinned.
    static let expectedColumns: [String: [String: [String]]] = [
        "tapwire-engagement": [
            "Delivered": ["delivered"],
            "Engagement rate": ["engagement_rate"],
            "Text replies": ["replies"],
            "Media requested but not shown": ["media_failure_rate"],
            "Engagement rate by category": ["category", "delivered", "opens", "actions", "engaged", "engagement_rate"],
            "Daily trend": ["time", "delivered", "engaged", "engagement_rate"],
            "Actions per category": ["category", "action", "responses", "rate"],
            "Rich vs text-only per category": ["category", "rich_delivered", "rich_rate", "rich_ci_low", "rich_ci_high",
                                               "text_delivered", "text_rate", "text_ci_low", "text_ci_high", "difference_pp"],
            "Text replies and reply length": ["category", "replies", "p50_length", "p90_length"],
            "Dismiss rate where measurable": ["category", "measurability", "delivered_measurable", "dismissals", "dismiss_rate"],
            "Time to response": ["category", "responses", "p50_seconds", "p90_seconds"],
            "Engagement by OS version": ["os_version", "category", "delivered", "engaged", "engagement_rate"],
            "Conversions per category": ["category", "conversion", "currency", "direct", "influenced", "converted", "delivered",
                                         "conversion_rate", "rich_rate", "text_rate"],
            "Holdouts: treated vs held out per campaign": ["campaign", "conversion_window", "stated_shares", "observed_share",
                                                           "treated_devices", "treated_converted", "treated_rate", "held_out_devices",
                                                           "held_out_converted", "held_out_rate", "difference_pp"],
        ],
        "tapwire-mismatches": [
            "Unknown and case-mismatched categories by app version": ["app_version", "category", "kind", "registered_as", "notifications",
                                                                       "device_unregistered", "last_seen"],
            "Notifications shown without buttons": ["time", "metric", "shown_without_buttons"],
            "Actions not registered in their category": ["app_version", "category", "action", "responses", "last_seen"],
            "Dismissals without customDismissAction": ["app_version", "category", "dismissals", "last_seen"],
            "Release regressions: each outcome's rate by app version": ["category", "outcome", "app_version", "delivered", "responses", "rate"],
        ],
        "tapwire-ingestion": [:],
    ]

    static let datasources = ["tapwire-pg": "grafana-postgresql-datasource", "tapwire-prom": "prometheus"]

    struct Panel {
        var dashboard: String
        var id: Int64?
        var title: String
        var type: String
        var datasource: String?
        var targets: [JSONValue]
    }

    static func load() throws -> [(file: String, json: JSONValue)] {
        let files = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".json") }.sorted()
        return try files.map { file in
            let data = try #require(FileManager.default.contents(atPath: directory + "/" + file))
            return (file, try JSONParser().parse(Array(data)))
        }
    }

    /// Panels, including those nested in collapsed rows.
    static func panels(of dashboard: JSONValue) -> [Panel] {
        let uid = dashboard["uid"]?.stringValue ?? "?"
        func walk(_ list: [JSONValue]) -> [Panel] {
            list.flatMap { panel -> [Panel] in
                let own = Panel(dashboard: uid, id: panel["id"]?.numberValue?.integer, title: panel["title"]?.stringValue ?? "",
                                type: panel["type"]?.stringValue ?? "", datasource: panel["datasource"]?["uid"]?.stringValue,
                                targets: panel["targets"]?.arrayValue ?? [])
                return [own] + walk(panel["panels"]?.arrayValue ?? [])
            }
        }
        return walk(dashboard["panels"]?.arrayValue ?? [])
    }

    /// Structural problems: what Grafana needs to load and save the dashboard, and our rules.
    static func lint(_ dashboard: JSONValue, file: String) -> [String] {
        var problems: [String] = []
        let schema = dashboard["schemaVersion"]?.numberValue?.integer ?? 0
        if schema < 36 { problems.append("\(file): schemaVersion \(schema) is missing or older than Grafana 9.4's 36") }
        if dashboard["uid"]?.stringValue?.isEmpty ?? true { problems.append("\(file): no uid (provisioned dashboards need a stable one)") }
        if dashboard["title"]?.stringValue?.isEmpty ?? true { problems.append("\(file): no title") }
        let panels = panels(of: dashboard)
        if panels.isEmpty { problems.append("\(file): no panels") }
        var ids: Set<Int64> = []
        for panel in panels {
            guard let id = panel.id else {
                problems.append("\(file): panel “\(panel.title)” has no id")
                continue
            }
            if !ids.insert(id).inserted { problems.append("\(file): panel id \(id) is used twice") }
            if panel.title.isEmpty { problems.append("\(file): panel \(id) has no title") }
            if panel.type == "row" { continue }
            guard let source = panel.datasource, let kind = datasources[source] else {
                problems.append("\(file): panel “\(panel.title)” uses data source \(panel.datasource ?? "none"), not a provisioned one")
                continue
            }
            if panel.targets.isEmpty { problems.append("\(file): panel “\(panel.title)” has no query") }
            var refIds: Set<String> = []
            for target in panel.targets {
                if !refIds.insert(target["refId"]?.stringValue ?? "").inserted { problems.append("\(file): panel “\(panel.title)” repeats a refId") }
                if kind == "prometheus" {
                    if target["expr"]?.stringValue?.isEmpty ?? true { problems.append("\(file): panel “\(panel.title)” has no PromQL expr") }
                    continue
                }
                let sql = target["rawSql"]?.stringValue ?? ""
                if sql.isEmpty { problems.append("\(file): panel “\(panel.title)” has no rawSql") }
                if !["table", "time_series"].contains(target["format"]?.stringValue ?? "") {
                    problems.append("\(file): panel “\(panel.title)” format must be table or time_series")
                }
                // Panels read rollups: their cost grows with categories × hours, not with events.
                if sql.range(of: "\\b(FROM|JOIN)\\s+(events|event_ids)\\b", options: [.regularExpression, .caseInsensitive]) != nil {
                    problems.append("\(file): panel “\(panel.title)” reads the raw events; read the rollups")
                }
            }
        }
        return problems
    }

    @Test func dashboardsAreValidGrafanaJSON() throws {
        let dashboards = try Self.load()
        #expect(Set(dashboards.map(\.file)) == ["engagement.json", "mismatches.json", "ingestion-health.json"])
        var uids: Set<String> = []
        for (file, json) in dashboards {
            #expect(Self.lint(json, file: file) == [])
            let uid = try #require(json["uid"]?.stringValue)
            #expect(uids.insert(uid).inserted, "uid \(uid) is used by two dashboards")
            // Every SQL panel is pinned in expectedColumns, and every pinned panel exists.
            let expected = try #require(Self.expectedColumns[uid], "\(uid) is not in expectedColumns")
            let sqlPanels = Self.panels(of: json).filter { $0.datasource == "tapwire-pg" }
            #expect(Set(sqlPanels.map(\.title)) == Set(expected.keys))
        }
    }

    @Test func theLintCatchesBrokenDashboards() throws {
        let base = try #require(Self.load().first { $0.file == "engagement.json" }).json
        var text = base.serialized()
        // A duplicate id, a panel reading raw events, an old schema version.
        text = text.replacingOccurrences(of: "\"id\":2,", with: "\"id\":1,")
        text = text.replacingOccurrences(of: "FROM rollup_totals\\nWHERE app_id = $app AND grain = 0 AND $__timeFilter(bucket) AND ('*' IN ($category) OR category IN ($category))\\nGROUP BY category\\nORDER BY delivered DESC",
                                          with: "FROM events\\nWHERE app_id = $app GROUP BY category ORDER BY delivered DESC")
        text = text.replacingOccurrences(of: "\"schemaVersion\":39", with: "\"schemaVersion\":16")
        let problems = Self.lint(try JSONParser().parse(text), file: "broken.json")
        #expect(problems.contains("broken.json: panel id 1 is used twice"))
        #expect(problems.contains("broken.json: panel “Engagement rate by category” reads the raw events; read the rollups"))
        #expect(problems.contains("broken.json: schemaVersion 16 is missing or older than Grafana 9.4's 36"))
    }

    @Test func grafanaSubstitutionMatchesGrafana() throws {
        let from = Timestamp(iso8601: "2026-11-18T10:00:00Z")!
        let to = Timestamp(iso8601: "2026-11-25T10:30:00.250Z")!
        let sql = "SELECT $__timeGroupAlias(hour, '1d'), x FROM t WHERE app_id = $app AND $__timeFilter(hour) AND c IN ($category) AND d IN (${all}) AND $__timeGroup(a.hour, 5m) > 0"
        let out = try GrafanaQuery.interpolate(sql, variables: ["app": .single("7"), "category": .multi(["message", "o'brien"]),
                                                               "all": .all(allValue: "'*'", options: ["x"])], from: from, to: to)
        #expect(out == "SELECT floor(extract(epoch from hour)/86400)*86400 AS \"time\", x FROM t WHERE app_id = 7 AND hour BETWEEN '2026-11-18T10:00:00Z' AND '2026-11-25T10:30:00.25Z' AND c IN ('message','o''brien') AND d IN ('*') AND floor(extract(epoch from a.hour)/300)*300 > 0")
        #expect(throws: GrafanaQuery.Failure.self) { try GrafanaQuery.interpolate("SELECT $__nope(x)", variables: [:], from: from, to: to) }
    }

    // MARK: - against a real database

    struct Seeded {
        var url: String
        var appId: String
        var appName: String
        var from: Timestamp
        var to: Timestamp
        var metrics: String
    }

    /// `tapwire demo` (2 weeks of simulated devices through the HTTP API), then, through a real
    /// `tapwire serve`, the mistakes the Mismatches dashboard is for.
    static func seed() throws -> Seeded {
        let name = "dash_" + String(UInt32.random(in: 0...UInt32.max))
        let admin = try PostgresConnection(url: try TestPostgres.serverURL())
        try admin.query("CREATE DATABASE \(name)")
        admin.close()
        let url = try TestPostgres.url(database: name)
        let hour: Int64 = 3_600_000_000
        let end = Timestamp(microseconds: Timestamp.now.microseconds / hour * hour)
        #expect(try TapwireBinary.run(["migrate", "--database-url", url]).status == 0)
        // The demo's converting devices and its holdout are left out: the conversions below are the test's own.
        let demo = try TapwireBinary.run(["demo", "--database-url", url, "--notifications", "20000", "--devices", "400", "--days", "10",
                                          "--end", end.description, "--format", "none", "--outcome-devices", "0", "--holdout-devices", "0"])
        try #require(demo.status == 0, "\(demo.output)")
        let rotated = try TapwireBinary.run(["keys", "rotate", "demo", "--kind", "write", "--grace", "1d", "--format", "json", "--database-url", url])
        let writeKey = try #require(try? JSONParser().parse(rotated.output.trimmingCharacters(in: .whitespacesAndNewlines))["key"]?.stringValue)

        let server = try TapwireBinary.serve(databaseURL: url, extraArguments: ["--key-cache-seconds", "0"])
        defer { _ = server.interrupt() }
        let at = Timestamp(microseconds: end.microseconds - 2 * hour)
        func delivered(_ category: String, registered: Bool = true) -> JSONValue {
            TestBatch.event("delivered", at: at, category: category, [("hasMedia", false), ("categoryRegistered", .bool(registered))])
        }
        func response(_ category: String, _ action: String) -> JSONValue {
            TestBatch.event("response", at: at, category: category, [("actionIdentifier", .string(action)), ("hasMedia", false)])
        }
        let events = (0..<5).map { _ in delivered("Message") } + (0..<3).map { _ in delivered("promo_winter") }
            + (0..<2).map { _ in delivered("message", registered: false) }
            + [response("message", "archive"), response("social_post", "com.apple.UNNotificationDismissActionIdentifier")]
        let posted = try server.client.post("/v1/batch", key: writeKey,
                                            json: TestBatch.body(events, sentAt: at, context: [("appVersion", "3.2.1"), ("platform", "iOS")]))
        #expect(posted.status == 200 && posted.json?["accepted"]?.numberValue?.integer == Int64(events.count), "\(posted.text)")
        // Conversions (docs/outcomes.md): promo notifications to twelve installs, eight opened, six
        // purchases after the open (direct), three signups after a delivery alone (influenced); sent
        // now, so their times stay inside the report's range (the batch above is moved to now).
        var buyers: [JSONValue] = []
        for i in 0..<12 {
            let device: (String, JSONValue) = ("deviceId", .string("dash-install-\(i)"))
            let notification: (String, JSONValue) = ("notificationId", .string("dash-n-\(i)"))
            buyers.append(TestBatch.event("delivered", at: at, category: "promo",
                                          [("hasMedia", .bool(i % 2 == 0)), ("categoryRegistered", true), device, notification]))
            if i < 8 {
                buyers.append(TestBatch.event("response", at: at.adding(seconds: 60), category: "promo",
                                              [("actionIdentifier", "com.apple.UNNotificationDefaultActionIdentifier"),
                                               ("hasMedia", .bool(i % 2 == 0)), device, notification]))
            }
            if i < 6 {
                buyers.append(.object([("eventId", .string(EventID.v7(at: at).description)), ("type", "conversion"),
                                       ("timestamp", .string(at.adding(seconds: 300).description)), ("name", "purchase"),
                                       ("value", .double(Double(10 + i))), ("currency", "EUR"), device]))
            } else if i >= 9 {
                buyers.append(.object([("eventId", .string(EventID.v7(at: at).description)), ("type", "conversion"),
                                       ("timestamp", .string(at.adding(seconds: 600).description)), ("name", "signup"), device]))
            }
        }
        let bought = try server.client.post("/v1/batch", key: writeKey,
                                            json: TestBatch.body(buyers, sentAt: .now, context: [("appVersion", "3.2.0"), ("platform", "iOS")]))
        #expect(bought.status == 200 && bought.json?["accepted"]?.numberValue?.integer == Int64(buyers.count), "\(bought.text)")
        // Holdouts (docs/holdouts.md): two campaigns' assignments over the last five days, a fifth
        // (spring) and a half (winter) held out, a device of each assigned again later (ignored),
        // and conversions in the window after some assignments.
        var holdout: [JSONValue] = []
        for i in 0..<300 {
            let spring = i < 200
            let campaign = spring ? "dash-spring" : "dash-winter", share = spring ? 0.2 : 0.5
            let heldOut = spring ? i % 5 == 0 : i % 2 == 0
            let device: (String, JSONValue) = ("deviceId", .string("dash-holdout-\(i)"))
            let back = Double(i % 5 * 86_400 + i)
            let assigned = at.adding(seconds: -back)
            func assignment(_ time: Timestamp, arm: Bool) -> JSONValue {
                .object([("eventId", .string(EventID.v7(at: time).description)), ("type", "assignment"), ("timestamp", .string(time.description)),
                         ("campaign", .string(campaign)), ("arm", .string(arm ? "held_out" : "treated")), ("holdoutShare", .double(share)), device])
            }
            holdout.append(assignment(assigned, arm: heldOut))
            if i % 100 == 7 { holdout.append(assignment(assigned.adding(seconds: 600), arm: !heldOut)) }
            if i % 3 == 0 || (!heldOut && i % 7 == 1) {
                holdout.append(.object([("eventId", .string(EventID.v7(at: assigned).description)), ("type", "conversion"),
                                        ("timestamp", .string(assigned.adding(seconds: 3_600).description)), ("name", "subscribe"), device]))
            }
        }
        let assigned = try server.client.post("/v1/batch", key: writeKey, json: TestBatch.body(holdout, sentAt: .now))
        #expect(assigned.status == 200 && assigned.json?["accepted"]?.numberValue?.integer == Int64(holdout.count), "\(assigned.text)")
        let metrics = try server.client.get("/metrics").text

        let connection = try PostgresConnection(url: url)
        defer { connection.close() }
        let appId = try #require(try connection.query("SELECT app_id FROM apps WHERE name = 'demo'").scalar)
        // What the panels see once the collector's background fold (every two seconds) has run.
        try RollupStore().fold(on: connection)
        return Seeded(url: url, appId: appId, appName: "demo", from: Timestamp(microseconds: end.microseconds - 11 * 24 * hour),
                      to: end, metrics: metrics)
    }

    /// Runs one dashboard's SQL panels; returns, per panel title, its columns and row count, or
    /// its error. Read-only, as Grafana's role is.
    static func run(_ dashboard: JSONValue, on connection: PostgresConnection, variables: [String: GrafanaQuery.Value],
                    from: Timestamp, to: Timestamp) -> [String: Result<(columns: [String], rows: [[String?]]), GrafanaQuery.Failure>] {
        var results: [String: Result<(columns: [String], rows: [[String?]]), GrafanaQuery.Failure>] = [:]
        for panel in panels(of: dashboard) where panel.datasource == "tapwire-pg" {
            for target in panel.targets {
                do {
                    let sql = try GrafanaQuery.interpolate(target["rawSql"]?.stringValue ?? "", variables: variables, from: from, to: to)
                    try connection.query("BEGIN READ ONLY")
                    defer { _ = try? connection.query("ROLLBACK") }
                    let result = try connection.query(sql)
                    results[panel.title] = .success((result.columns, result.rows))
                } catch {
                    results[panel.title] = .failure(GrafanaQuery.Failure(description: "panel “\(panel.title)”: \(error)"))
                }
            }
        }
        return results
    }

    static func variableValues(_ dashboard: JSONValue, on connection: PostgresConnection, app: String,
                               from: Timestamp, to: Timestamp) throws -> [String: [String]] {
        var values: [String: [String]] = [:]
        var bound: [String: GrafanaQuery.Value] = ["app": .single(app)]
        for variable in dashboard["templating"]?["list"]?.arrayValue ?? [] {
            let name = try #require(variable["name"]?.stringValue)
            let sql = try GrafanaQuery.interpolate(try #require(variable["query"]?.stringValue), variables: bound, from: from, to: to)
            let result = try connection.query(sql)
            // Grafana takes __value/__text when present, else the first column.
            let column = result.column("__value") ?? 0
            values[name] = result.rows.compactMap { $0[column] }
            if name != "app" { bound[name] = .all(allValue: variable["allValue"]?.stringValue, options: values[name] ?? []) }
        }
        return values
    }

    @Test func everyPanelsSQLRunsAgainstTheDemoData() throws {
        let seeded = try Self.seed()
        let connection = try PostgresConnection(url: seeded.url)
        defer { connection.close() }
        for (file, dashboard) in try Self.load() {
            let uid = dashboard["uid"]?.stringValue ?? ""
            let expected = Self.expectedColumns[uid] ?? [:]
            let values = try Self.variableValues(dashboard, on: connection, app: seeded.appId, from: seeded.from, to: seeded.to)
            if dashboard["templating"]?["list"]?.arrayValue?.isEmpty == false {
                #expect(values["app"]?.contains(seeded.appId) == true, "\(file): the app variable does not list the demo app")
            }
            if let categories = values["category"] {
                #expect(Set(categories).isSuperset(of: ["message", "social_post", "promo", "news"]), "\(file): categories \(categories)")
            }
            // "All" categories (the custom all value), then two picked by hand.
            let os: GrafanaQuery.Value = .all(allValue: "'*'", options: values["os"] ?? [])
            var selections: [[String: GrafanaQuery.Value]] = [["app": .single(seeded.appId), "category": .all(allValue: "'*'", options: values["category"] ?? []),
                                                               "os": os]]
            if values["category"] != nil { selections.append(["app": .single(seeded.appId), "category": .multi(["message", "promo"]), "os": os]) }
            if let osValues = values["os"] {
                // The demo's devices send 18.1 and 11.1; the hand-made batch of the seed sends none.
                #expect(Set(osValues) == ["18", "11", ""], "\(file): OS versions \(osValues)")
            }
            for variables in selections {
                let results = Self.run(dashboard, on: connection, variables: variables, from: seeded.from, to: seeded.to)
                #expect(Set(results.keys) == Set(expected.keys))
                for (title, result) in results {
                    switch result {
                    case let .failure(failure):
                        Issue.record("\(file): \(failure)")
                    case let .success((columns, rows)):
                        #expect(columns == expected[title], "\(file): “\(title)” returned \(columns)")
                        #expect(!rows.isEmpty, "\(file): “\(title)” returned no rows from the demo data")
                        if columns.first == "time" {
                            let times = rows.compactMap { $0[0].flatMap(Double.init) }
                            #expect(times.count == rows.count && times == times.sorted(), "\(file): “\(title)” time column not sorted epoch seconds")
                        }
                    }
                }
                if case let .multi(picked) = variables["category"], case let .success((columns, rows))? = results["Engagement rate by category"] {
                    let index = try #require(columns.firstIndex(of: "category"))
                    #expect(Set(rows.compactMap { $0[index] }) == Set(picked))
                }
            }
        }
    }

    @Test func panelsAgreeWithTheReportAndFindTheMismatches() throws {
        let seeded = try Self.seed()
        let connection = try PostgresConnection(url: seeded.url)
        defer { connection.close() }
        let dashboards = Dictionary(uniqueKeysWithValues: try Self.load().map { ($0.json["uid"]?.stringValue ?? "", $0.json) })
        let variables: [String: GrafanaQuery.Value] = ["app": .single(seeded.appId), "category": .all(allValue: "'*'", options: []),
                                                       "os": .all(allValue: "'*'", options: [])]
        // Whole hours: the hourly rollups are exact there, so the panel equals the report.
        let engagement = Self.run(try #require(dashboards["tapwire-engagement"]), on: connection, variables: variables,
                                  from: seeded.from, to: Timestamp(microseconds: seeded.to.microseconds - 1))
        let byCategory = try #require(try engagement["Engagement rate by category"]?.get())
        let report = try TapwireBinary.run(["report", "--app", "demo", "--from", seeded.from.description, "--to", seeded.to.description,
                                            "--format", "json", "--database-url", seeded.url])
        try #require(report.status == 0, "\(report.output)")
        let json = try JSONParser().parse(report.output)
        let categories = try #require(json["categories"]?.arrayValue, "report JSON: \(report.output.prefix(400))")
        var reported: [String: Int64] = [:]
        for category in categories {
            if let name = category["category"]?.stringValue ?? category["identifier"]?.stringValue,
               let delivered = category["delivered"]?.numberValue?.integer {
                reported[name] = delivered
            }
        }
        #expect(!reported.isEmpty, "no per-category delivered counts in the report JSON")
        for row in byCategory.rows where row[0] != "" {
            #expect(reported[row[0] ?? ""] == row[1].flatMap { Int64($0) }, "delivered of \(row[0] ?? "") differs from `tapwire report`")
        }
        // The overall panels count the categories the report's overall counts (docs/reports.md):
        // the demo's sent-only digest takes no part in them.
        let overall = try #require(json["overall"])
        #expect(overall["excludedCategories"]?.arrayValue?.first?["category"]?.stringValue == "digest")
        let delivered = try #require(try engagement["Delivered"]?.get()).rows.first?[0].flatMap { Int64($0) }
        #expect(delivered == overall["delivered"]?.numberValue?.integer, "the Delivered panel differs from the report's overall")
        let rate = try #require(try engagement["Engagement rate"]?.get()).rows.first?[0].flatMap { Double($0) }
        let reportedRate = try #require(overall["engagementRate"]?.numberValue?.double)
        #expect(abs((rate ?? -1) - reportedRate) < 1e-6, "the Engagement rate panel \(rate ?? -1) differs from the report's \(reportedRate)")
        // Rich vs text-only per category: the sides are the used cells, as the report's are.
        let sides = try #require(try engagement["Rich vs text-only per category"]?.get())
        for category in categories {
            guard let name = category["category"]?.stringValue, let row = sides.rows.first(where: { $0[0] == name }) else { continue }
            #expect(row[1].flatMap { Double($0) }.map { Int64($0) } == category["rich"]?["delivered"]?.numberValue?.integer, "\(name): rich")
            #expect(row[5].flatMap { Double($0) }.map { Int64($0) } == category["textOnly"]?["delivered"]?.numberValue?.integer, "\(name): text-only")
        }
        #expect(!sides.rows.contains { $0[0] == "digest" }, "a category without deliveries has no side")

        // Conversions per category: each row is the report's conversion of that category and name.
        let conversions = try #require(try engagement["Conversions per category"]?.get())
        #expect(conversions.rows.contains { $0[0] == "promo" && $0[1] == "purchase" && $0[3] == "6" }, "\(conversions.rows)")
        #expect(conversions.rows.contains { $0[0] == "promo" && $0[1] == "signup" && $0[4] == "3" }, "\(conversions.rows)")
        var reportedConversions = 0
        for category in categories {
            guard let name = category["category"]?.stringValue else { continue }
            for conversion in category["conversions"]?.arrayValue ?? [] {
                reportedConversions += 1
                let key = conversion["name"]?.stringValue
                guard let row = conversions.rows.first(where: { $0[0] == name && $0[1] == key && $0[2] == conversion["currency"]?.stringValue }) else {
                    Issue.record("\(name) \(key ?? ""): in the report, not in the panel")
                    continue
                }
                for (column, field) in [(3, "direct"), (4, "influenced"), (5, "converted"), (6, "delivered")] {
                    #expect(row[column].flatMap { Int64($0) } == conversion[field]?.numberValue?.integer, "\(name) \(key ?? ""): \(field)")
                }
                let rate = try #require(conversion["rate"]?.numberValue?.double)
                #expect(abs((row[7].flatMap { Double($0) } ?? -1) - rate) < 1e-6, "\(name) \(key ?? ""): rate")
                let uplift = category["conversionUplift"]?.arrayValue?.first {
                    $0["name"]?.stringValue == key && $0["currency"]?.stringValue == conversion["currency"]?.stringValue
                }
                for (column, side) in [(8, "rich"), (9, "textOnly")] {
                    guard let expected = uplift?[side]?["rate"]?.numberValue?.double else { continue }
                    #expect(abs((row[column].flatMap { Double($0) } ?? -1) - expected) < 1e-6, "\(name) \(key ?? ""): \(side)")
                }
            }
        }
        #expect(reportedConversions == conversions.rows.count && reportedConversions >= 2)

        // Holdouts: a row per campaign of the report's `holdouts`, with its arms, rates, split and
        // difference (the report's own when shown, else its arms' rates apart).
        let holdoutPanel = try #require(try engagement["Holdouts: treated vs held out per campaign"]?.get())
        let holdouts = try #require(json["holdouts"]?.arrayValue, "no holdouts in the report: \(report.output.prefix(400))")
        let campaigns: Set<String> = Set(holdouts.compactMap { $0["campaign"]?.stringValue })
        #expect(campaigns.isSuperset(of: ["dash-spring", "dash-winter"]), "\(campaigns)")
        #expect(holdoutPanel.rows.count == holdouts.count, "\(holdoutPanel.rows)")
        for holdout in holdouts {
            let campaign = try #require(holdout["campaign"]?.stringValue)
            guard let row = holdoutPanel.rows.first(where: { $0[0] == campaign }) else {
                Issue.record("\(campaign): in the report, not in the panel")
                continue
            }
            // The report's JSON rounds to 6 digits; the difference is in points of two rounded rates.
            func close(_ column: Int, _ expected: Double?, _ what: String, within: Double = 1e-6) {
                #expect(abs((row[column].flatMap { Double($0) } ?? -1) - (expected ?? -2)) < within, "\(campaign): \(what) \(row)")
            }
            #expect(row[1] == holdout["window"]?.stringValue, "\(campaign): window \(row)")
            #expect(row[2].flatMap { Double($0) } == holdout["srm"]?["expectedShare"]?.numberValue?.double, "\(campaign): stated share \(row)")
            close(3, holdout["srm"]?["observedShare"]?.numberValue?.double, "observed share")
            for (offset, arm) in [(4, "treated"), (7, "heldOut")] {
                #expect(row[offset].flatMap { Int64($0) } == holdout[arm]?["devices"]?.numberValue?.integer, "\(campaign): \(arm) devices")
                #expect(row[offset + 1].flatMap { Int64($0) } == holdout[arm]?["converted"]?.numberValue?.integer, "\(campaign): \(arm) converted")
                close(offset + 2, holdout[arm]?["rate"]?.numberValue?.double, "\(arm) rate")
            }
            let rates = [holdout["treated"]?["rate"], holdout["heldOut"]?["rate"]].compactMap { $0?.numberValue?.double }
            let difference = holdout["difference"]?.numberValue?.double ?? (rates.count == 2 ? rates[0] - rates[1] : nil)
            close(10, difference.map { $0 * 100 }, "difference", within: 1e-3)
        }
        let spring = try #require(holdouts.first { $0["campaign"]?.stringValue == "dash-spring" })
        #expect(spring["treated"]?["devices"]?.numberValue?.integer == 160 && spring["heldOut"]?["devices"]?.numberValue?.integer == 40,
                "the first assignment of each device is kept: \(spring)")

        // Engagement by OS version, from the daily rows: over whole UTC days, each OS's and
        // category's delivered and engaged are the report's `--by os` (which reads events).
        let day: Int64 = 86_400_000_000
        let firstDay = Timestamp(microseconds: RollupDeltas.floor(seeded.from.microseconds, day) + day)
        let lastDay = Timestamp(microseconds: RollupDeltas.floor(seeded.to.microseconds, day))
        let engagementBoard = try #require(dashboards["tapwire-engagement"])
        let osPanels = Self.run(engagementBoard, on: connection, variables: variables, from: firstDay,
                                to: Timestamp(microseconds: lastDay.microseconds - 1))
        let byOS = try #require(try osPanels["Engagement by OS version"]?.get())
        let osReport = try TapwireBinary.run(["report", "--app", "demo", "--from", firstDay.description, "--to", lastDay.description,
                                              "--by", "os", "--format", "json", "--database-url", seeded.url])
        try #require(osReport.status == 0, "\(osReport.output)")
        var reportedByOS: [String: (delivered: Int64, engaged: Int64)] = [:]
        for group in try JSONParser().parse(osReport.output)["groups"]?.arrayValue ?? [] {
            for category in group["categories"]?.arrayValue ?? [] {
                guard let os = group["value"]?.stringValue, let name = category["category"]?.stringValue else { continue }
                reportedByOS[os + "|" + name] = (category["delivered"]?.numberValue?.integer ?? -1, category["engaged"]?.numberValue?.integer ?? -1)
            }
        }
        #expect(Set(reportedByOS.keys.map { $0.split(separator: "|").first.map(String.init) ?? "" }).isSuperset(of: ["18", "11"]))
        for row in byOS.rows {
            let key = (row[0] ?? "") + "|" + (row[1] ?? "")
            guard let reported = reportedByOS[key] else { Issue.record("\(key) is not in the report --by os"); continue }
            #expect(row[2].flatMap { Int64($0) } == reported.delivered && row[3].flatMap { Int64($0) } == reported.engaged, "\(key): \(row)")
        }
        #expect(byOS.rows.count == reportedByOS.count)

        let mismatches = Self.run(try #require(dashboards["tapwire-mismatches"]), on: connection, variables: variables,
                                  from: seeded.from, to: seeded.to.advanced(byHours: 1))
        let found = try #require(try mismatches["Unknown and case-mismatched categories by app version"]?.get())
        let kinds = Set(found.rows.map { "\($0[0] ?? "") \($0[1] ?? "") \($0[2] ?? "") \($0[3] ?? "-") \($0[4] ?? "")" })
        #expect(kinds.contains("3.2.1 Message case_mismatch message 5"), "\(kinds)")
        #expect(kinds.contains("3.2.1 promo_winter unknown_category - 3"), "\(kinds)")
        #expect(found.rows.contains { $0[0] == "3.2.1" && $0[1] == "message" && $0[2] == "unknown_category" && $0[5] == "2" }, "\(kinds)")
        #expect(!found.rows.contains { $0[1] == "social_post" || $0[1] == "promo" }, "registered categories are not mismatches: \(kinds)")
        let actions = try #require(try mismatches["Actions not registered in their category"]?.get())
        #expect(actions.rows.contains { $0[1] == "message" && $0[2] == "archive" && $0[3] == "1" })
        let dismissals = try #require(try mismatches["Dismissals without customDismissAction"]?.get())
        #expect(dismissals.rows.contains { $0[0] == "3.2.1" && $0[1] == "social_post" && $0[2] == "1" })
        let shown = try #require(try mismatches["Notifications shown without buttons"]?.get())
        #expect(shown.rows.reduce(0) { $0 + (Int($1[2] ?? "0") ?? 0) } == 10)

        // The release panel, from the release rollups: each category's deliveries over its app
        // versions are the report's (from rollup_totals) over the same whole UTC days, and each
        // rate is responses / delivered.
        let daysEnd = Timestamp(microseconds: RollupDeltas.floor(seeded.to.microseconds, day) + day)
        let findings = try #require(dashboards["tapwire-mismatches"])
        let release = try #require(try Self.run(findings, on: connection, variables: variables, from: seeded.from, to: daysEnd)[
            "Release regressions: each outcome's rate by app version"]?.get())
        let wholeDays = try TapwireBinary.run(["report", "--app", "demo", "--from", seeded.from.description, "--to", daysEnd.description,
                                               "--format", "json", "--database-url", seeded.url])
        try #require(wholeDays.status == 0, "\(wholeDays.output)")
        // "category|outcome" → responses, and "category|delivered", as the panel names its outcomes.
        var reportedByDay: [String: Int64] = [:]
        for category in try JSONParser().parse(wholeDays.output)["categories"]?.arrayValue ?? [] {
            guard let name = category["category"]?.stringValue, let delivered = category["delivered"]?.numberValue?.integer, delivered > 0 else { continue }
            reportedByDay[name + "|delivered"] = delivered
            reportedByDay[name + "|opens"] = category["opens"]?.numberValue?.integer
            reportedByDay[name + "|text replies"] = category["textReplies"]?["count"]?.numberValue?.integer
            for (action, count) in category["actions"]?.objectValue?.members ?? [] {
                reportedByDay[name + "|action " + action] = count.numberValue?.integer
            }
        }
        var releaseSums: [String: Int64] = [:]
        for row in release.rows {
            let delivered = try #require(row[3].flatMap { Int64($0) }), responses = try #require(row[4].flatMap { Int64($0) })
            let rate = try #require(row[5].flatMap { Double($0) })
            #expect(abs(rate - Double(responses) / Double(delivered)) < 1e-4, "\(row)")
            releaseSums[(row[0] ?? "") + "|" + (row[1] ?? ""), default: 0] += responses
            if row[1] == "opens" { releaseSums[(row[0] ?? "") + "|delivered", default: 0] += delivered }
        }
        #expect(Set(release.rows.compactMap { $0[1] }).isSuperset(of: ["opens", "text replies"]), "\(release.rows.prefix(5))")
        #expect(!reportedByDay.isEmpty)
        for (key, count) in reportedByDay where count > 0 {
            #expect(releaseSums[key] == count, "\(key): the release panel differs from `tapwire report`")
        }
    }

    /// Prometheus panels: every metric they name is one a collector exports, and every
    /// expression parses (promtool checks them as recording rules).
    @Test func prometheusPanelsNameRealMetrics() throws {
        let seeded = try Self.seed()
        let exported = Set(seeded.metrics.split(separator: "\n").compactMap { line -> String? in
            guard line.hasPrefix("# TYPE ") else { return nil }
            return line.split(separator: " ").dropFirst(2).first.map(String.init)
        })
        #expect(exported.contains("tapwire_http_requests_total"))
        var expressions: [String] = []
        for (file, dashboard) in try Self.load() {
            for panel in Self.panels(of: dashboard) where panel.datasource == "tapwire-prom" {
                for target in panel.targets {
                    let expr = try #require(target["expr"]?.stringValue)
                    expressions.append(expr)
                    let regex = try NSRegularExpression(pattern: "\\btapwire_[a-z_]+")
                    let ns = expr as NSString
                    for match in regex.matches(in: expr, range: NSRange(location: 0, length: ns.length)) {
                        var name = ns.substring(with: match.range)
                        for suffix in ["_bucket", "_sum", "_count"] where name.hasSuffix(suffix) && !exported.contains(name) {
                            name = String(name.dropLast(suffix.count))
                        }
                        #expect(exported.contains(name), "\(file): “\(panel.title)” uses \(name), which /metrics does not export")
                    }
                }
            }
        }
        #expect(expressions.count >= 10)
        var rules = "groups:\n  - name: dashboard-panels\n    rules:\n"
        for (index, expr) in expressions.enumerated() {
            let concrete = expr.replacingOccurrences(of: "$__rate_interval", with: "5m").replacingOccurrences(of: "$__interval", with: "1m")
            rules += "      - record: panel_\(index)\n        expr: '\(concrete.replacingOccurrences(of: "'", with: "''"))'\n"
        }
        let path = NSTemporaryDirectory() + "tapwire-panels-\(UInt32.random(in: 0...UInt32.max)).yml"
        try rules.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let promtool = ["/usr/bin/promtool", "/usr/local/bin/promtool"].first { FileManager.default.isExecutableFile(atPath: $0) }
        let checked = try Subprocess.run(try #require(promtool, "promtool is not installed (scripts/install-deps.sh check)"), ["check", "rules", path])
        #expect(checked.status == 0, "\(checked.output)")
    }
}

extension Timestamp {
    func advanced(byHours hours: Int64) -> Timestamp { Timestamp(microseconds: microseconds + hours * 3_600_000_000) }
}
