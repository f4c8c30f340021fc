import Foundation
import Testing
import TapwireCore
import TapwireServer
import TapwireStore
import TapwireTestSupport

/// Security review of the auth surface and of how client strings reach the database, through
/// real HTTP and a real PostgreSQL.
@Suite struct SecurityTests {
    /// A collector with every extension route plus one read route that says whose data it would
    /// show, so the read-key rules are tested even before report routes exist.
    final class Harness: Sendable {
        let database: TestDatabase
        let collector: Collector
        let logs = LogSink.memory()

        static let whoami = Route("GET", "/v1/test/whoami", access: .read) { call throws(APIError) in
            let identity = try call.ownApp()
            return .json(200, ["app": .string(identity.appName), "appId": .int(identity.appId)])
        }

        init(keyCacheSeconds: Int = 30) throws {
            database = try TestDatabase.create()
            var configuration = CollectorConfiguration(databaseURL: database.url)
            configuration.http.port = 0
            configuration.readerThreads = 2
            configuration.keyCacheSeconds = keyCacheSeconds
            collector = Collector(configuration: configuration, logger: Logger(label: "test", minimumLevel: .debug, sink: logs),
                                  extraRoutes: [Self.whoami])
            try collector.start()
        }

        var client: HTTPTestClient { HTTPTestClient(port: collector.port) }
        deinit { collector.stop() }
    }

    // MARK: keys at rest

    @Test func keysAreStoredOnlyAsSHA256OfTheSecret() throws {
        let database = try TestDatabase.create()
        let app = try database.createApp("shop")
        let rows = try database.query("SELECT key_id, kind, encode(secret_hash, 'hex') FROM api_keys ORDER BY kind").rows
        #expect(rows.count == 2)
        for (row, key) in zip(rows, [app.readKey, app.writeKey]) {
            #expect(row[0] == key.keyId)
            #expect(row[1] == key.kind.rawValue)
            #expect(row[2] == SHA256.hex(Array(key.secret.utf8)))
        }
        // No column of any table holds a secret or a whole key.
        let tables = try database.query("SELECT tablename FROM pg_tables WHERE schemaname = 'public'").rows.compactMap { $0[0] }
        #expect(tables.contains("api_keys"))
        for table in tables {
            let dump = try database.query("SELECT coalesce(string_agg(t::text, E'\\n'), '') FROM \"\(table)\" t").scalar ?? ""
            for key in [app.writeKey, app.readKey] {
                #expect(!dump.contains(key.secret), "\(table) holds a key's secret")
            }
        }
    }

    @Test func keyComparisonIsOverDigestsAndRejectsNearMisses() throws {
        #expect(constantTimeEquals([1, 2, 3], [1, 2, 3]))
        #expect(!constantTimeEquals([1, 2, 3], [1, 2, 4]))
        #expect(!constantTimeEquals([9, 2, 3], [1, 2, 3]))
        #expect(!constantTimeEquals([1, 2, 3], [1, 2]))
        #expect(!constantTimeEquals([], [0]))
        let harness = try Harness()
        let app = try harness.database.createApp()
        let body = TestBatch.body([TestBatch.event()])
        // The right public id with a secret that differs in its last character, or its first.
        for position in [39, 0] {
            var secret = Array(app.writeKey.secret)
            secret[position] = secret[position] == "A" ? "B" : "A"
            let nearMiss = APIKey(kind: .write, keyId: app.writeKey.keyId, secret: String(secret))
            let response = try harness.client.post("/v1/batch", key: nearMiss.text, json: body)
            #expect(response.status == 401)
        }
        // A read key's secret under the write key's id (and kind) is not the write key.
        let swapped = APIKey(kind: .write, keyId: app.writeKey.keyId, secret: app.readKey.secret)
        #expect(try harness.client.post("/v1/batch", key: swapped.text, json: body).status == 401)
        // The write key's id and secret presented as a read key.
        let kindSwapped = APIKey(kind: .read, keyId: app.writeKey.keyId, secret: app.writeKey.secret)
        #expect(try harness.client.get("/v1/test/whoami", key: kindSwapped.text).status == 401)
        #expect(try harness.client.post("/v1/batch", key: app.writeKey.text, json: body).status == 200)
    }

    // MARK: who may call what

    @Test func writeKeysCannotReadAndReadKeysCannotWrite() throws {
        let harness = try Harness()
        let app = try harness.database.createApp()
        let readRoutes = harness.collector.routes.filter { $0.access == .read }
        #expect(!readRoutes.isEmpty)
        for route in readRoutes {
            let response = try harness.client.request(route.method, route.path, headers: ["Authorization": HTTPTestClient.basic(app.writeKey.text)])
            #expect(response.status == 403, "\(route.method) \(route.path) with a write key: \(response.status)")
            #expect(response.errorCode == "forbidden")
            #expect(try harness.client.request(route.method, route.path).status == 401, "\(route.path) without a key")
        }
        let writeRoutes = [("/v1/batch", TestBatch.body([TestBatch.event()])), ("/v1/categories", Array(#"{"appVersion":"1","categories":[]}"#.utf8))]
        for (path, body) in writeRoutes {
            let response = try harness.client.post(path, key: app.readKey.text, json: body)
            #expect(response.status == 403, "\(path) with a read key")
        }
        #expect(try harness.database.query("SELECT count(*) FROM events").scalar == "0")
        #expect(try harness.database.query("SELECT count(*) FROM manifests").scalar == "0")
    }

    @Test func aReadKeyIsScopedToItsApp() throws {
        let harness = try Harness()
        let a = try harness.database.createApp("alpha")
        let b = try harness.database.createApp("beta")
        let own = try harness.client.get("/v1/test/whoami?app=alpha", key: a.readKey.text)
        #expect(own.status == 200)
        #expect(own.json?["appId"]?.numberValue?.integer == a.appId)
        // Without ?app= a read key means its own app, never another's.
        #expect(try harness.client.get("/v1/test/whoami", key: b.readKey.text).json?["app"]?.stringValue == "beta")
        let other = try harness.client.get("/v1/test/whoami?app=alpha", key: b.readKey.text)
        #expect(other.status == 403)
        #expect(!other.text.contains(a.readKey.secret) && !other.text.contains(b.readKey.secret))
        // Every read route that takes ?app= refuses another app's key.
        for route in harness.collector.routes where route.access == .read {
            let response = try harness.client.get(route.path + "?app=alpha", key: b.readKey.text)
            #expect(response.status == 403, "\(route.path)?app=alpha with beta's read key: \(response.status)")
        }
        // A write key's events land in its own app whatever the body claims (see IngestionTests), and
        // the same event id in two apps is two events: dedup is per app.
        let id = EventID.v7(at: .now)
        let body = TestBatch.body([TestBatch.event(id: id)])
        #expect(try harness.client.post("/v1/batch", key: a.writeKey.text, json: body).json?["accepted"]?.numberValue?.integer == 1)
        #expect(try harness.client.post("/v1/batch", key: b.writeKey.text, json: body).json?["accepted"]?.numberValue?.integer == 1)
        #expect(try harness.database.query("SELECT array_agg(app_id ORDER BY app_id)::text FROM events").scalar == "{\(a.appId),\(b.appId)}")
    }

    @Test func rotationKeepsTheOldKeyForTheGraceThenRevokesIt() throws {
        let harness = try Harness(keyCacheSeconds: 1)
        let app = try harness.database.createApp("rotating")
        let connection = try harness.database.connect()
        defer { connection.close() }
        let body = { TestBatch.body([TestBatch.event()]) }
        // A new write key with 3 seconds of grace: both work meanwhile.
        let newWrite = try AppStore().rotateKey(appNamed: "rotating", kind: .write, graceSeconds: 3, on: connection)
        #expect(newWrite.text != app.writeKey.text)
        #expect(try harness.client.post("/v1/batch", key: app.writeKey.text, json: body()).status == 200)
        #expect(try harness.client.post("/v1/batch", key: newWrite.text, json: body()).status == 200)
        // After the grace (and the 1 s key cache), the old one is refused.
        let revoked = eventually(timeout: 10, poll: 0.25) {
            (try? harness.client.post("/v1/batch", key: app.writeKey.text, json: body()).status) == 401
        }
        #expect(revoked)
        #expect(try harness.client.post("/v1/batch", key: newWrite.text, json: body()).status == 200)
        // The read key rotated with no grace stops at once (within the cache time).
        #expect(try harness.client.get("/v1/test/whoami", key: app.readKey.text).status == 200)
        let newRead = try AppStore().rotateKey(appNamed: "rotating", kind: .read, graceSeconds: 0, on: connection)
        #expect(eventually(timeout: 5, poll: 0.25) { (try? harness.client.get("/v1/test/whoami", key: app.readKey.text).status) == 401 })
        #expect(try harness.client.get("/v1/test/whoami", key: newRead.text).status == 200)
        // Rotating one kind leaves the other kind's current key alone.
        #expect(try harness.client.post("/v1/batch", key: newWrite.text, json: body()).status == 200)
        #expect(try harness.database.query("SELECT count(*) FROM api_keys WHERE app_id = $1 AND (expires_at IS NULL OR expires_at > now())",
                                           [String(app.appId)]).scalar == "2")
    }

    // MARK: errors never echo secrets

    @Test func noAnswerOrLogLineEchoesASecret() throws {
        let harness = try Harness()
        let app = try harness.database.createApp()
        let unknown = APIKey.generate(kind: .write)
        let secrets = [app.writeKey.secret, app.readKey.secret, unknown.secret]
        var responses: [TestResponse] = []
        let body = TestBatch.body([TestBatch.event()])
        responses.append(try harness.client.post("/v1/batch", key: unknown.text, json: body))
        responses.append(try harness.client.post("/v1/batch", key: app.readKey.text, json: body))
        responses.append(try harness.client.get("/v1/test/whoami", key: app.writeKey.text))
        responses.append(try harness.client.get("/v1/test/whoami?app=" + app.readKey.text, key: app.readKey.text))
        for header in ["Basic " + Data((unknown.text + "x:").utf8).base64EncodedString(), "Bearer " + unknown.text, unknown.text,
                       "Basic " + Data((":" + unknown.text).utf8).base64EncodedString()] {
            responses.append(try harness.client.request("POST", "/v1/batch", headers: ["Authorization": header], body: body))
        }
        // A key pasted into places it does not belong: the path, the query, the body, a header.
        responses.append(try harness.client.get("/v1/" + unknown.text))
        responses.append(try harness.client.request("POST", "/v1/batch?key=" + unknown.text, headers: [
            "Authorization": HTTPTestClient.basic(app.writeKey.text), "Content-Encoding": unknown.text,
        ], body: body))
        let keyInBody = Array(#"{"events":[{"eventId":"\#(unknown.text)","type":"\#(unknown.text)"}],"\#(unknown.text)":1,"\#(unknown.text)":2}"#.utf8)
        responses.append(try harness.client.post("/v1/batch", key: app.writeKey.text, json: keyInBody))
        responses.append(try harness.client.post("/v1/batch", key: app.writeKey.text, json: TestBatch.body([
            TestBatch.event("bogus-\(unknown.text)", category: unknown.text + String(repeating: "x", count: 300)),
        ])))
        responses.append(try harness.client.request(unknown.text, "/v1/batch", headers: ["Authorization": HTTPTestClient.basic(app.writeKey.text)]))
        #expect(responses.map(\.status) == [401, 403, 403, 403, 401, 401, 401, 401, 404, 415, 400, 200, 405])
        for (i, response) in responses.enumerated() {
            for secret in secrets {
                #expect(!response.text.contains(secret), "answer \(i) (\(response.status)) echoes a secret: \(response.text.prefix(200))")
                #expect(!response.headers.values.contains { $0.contains(secret) })
            }
        }
        // Request log lines are written when MHD reports completion, which may come after the
        // answer was read: wait for one line per request rather than a fixed time.
        #expect(eventually(timeout: 10) { harness.logs.capturedLines.filter { $0.contains("\"route\"") }.count >= responses.count })
        let log = harness.logs.capturedLines.joined(separator: "\n")
        let metrics = try harness.client.get("/metrics").text
        for secret in secrets {
            #expect(!log.contains(secret), "a log line holds a secret")
            #expect(!metrics.contains(secret), "/metrics holds a secret")
        }
    }

    @Test func keyShapedTextLosesItsSecretWhenEchoed() {
        let key = APIKey.generate(kind: .read)
        let echoed = FieldRules.truncatedForEcho("see \(key.text)/x and tww_\(key.keyId)_ and \(key.text)", max: 500)
        #expect(!echoed.contains(key.secret))
        #expect(echoed == "see \(key.redacted)/x and tww_\(key.keyId)_ and \(key.redacted)")
        #expect(APIKey.redactingSecrets(in: "twx_0123456789abcdef_abc") == "twx_0123456789abcdef_abc")
        #expect(APIKey.redactingSecrets(in: "żółw tww_0123456789abcdef_Zz9🙂") == "żółw tww_0123456789abcdef_…🙂")
    }

    // MARK: hostile strings, byte-exact

    /// Quotes, backslashes, tabs, newlines, a `\.` line (COPY text format's end marker), `\N`
    /// (its NULL), array and JSON syntax, SQL, and non-ASCII of every width.
    static let hostile: [String] = [
        #"it's "quoted""#, #"back\slash\\double"#, "tab\there", "new\nline", "cr\r\nlf", "\\.", "line\n\\.\nafter", "\\N",
        "{braces,comma}", "\"NULL\"", "NULL", "'); DROP TABLE events; --", "$1 $$ E'\\x41'", "%s %n %x", "\u{7F}\u{1B}[31m\u{08}",
        "żółć Ünïcödé", "日本語のカテゴリ", "🙂👍🏽👨‍👩‍👧", "e\u{301} combining", "\u{202E}rtl override", "\u{2028}\u{2029}", "\u{FEFF}bom",
        "\u{FFFF}\u{10FFFF}", " leading and trailing ", String(repeating: "ж", count: 128),
    ]

    @Test func hostileCategoriesAndActionsRoundTripByteExact() throws {
        let harness = try Harness()
        let app = try harness.database.createApp()
        var events: [JSONValue] = []
        for (i, text) in Self.hostile.enumerated() {
            #expect(text.utf8.count <= 256)
            events.append(TestBatch.event("response", id: EventID.v7(at: .now), category: text, [
                ("actionIdentifier", .string(Self.hostile[(i + 1) % Self.hostile.count])), ("notificationId", .string(text)),
                ("campaign", .string(text)), ("variant", .string(text)),
            ]))
        }
        let context: [(String, JSONValue)] = [("appVersion", "1.0\t\"beta\"\\"), ("platform", "iOS\n"), ("sdk", .string(Self.hostile[5])),
                                              ("deviceId", .string(Self.hostile[14]))]
        let response = try harness.client.post("/v1/batch", key: app.writeKey.text, json: TestBatch.body(events, context: context))
        #expect(response.status == 200)
        #expect(response.json?["accepted"]?.numberValue?.integer == Int64(Self.hostile.count))
        // Read back as hex of the stored UTF-8: no decoding on the way back can hide a difference.
        let rows = try harness.database.query("""
            SELECT encode(convert_to(category, 'UTF8'), 'hex'), encode(convert_to(action_identifier, 'UTF8'), 'hex'),
                   encode(convert_to(notification_id, 'UTF8'), 'hex'), encode(convert_to(campaign, 'UTF8'), 'hex'),
                   encode(convert_to(app_version, 'UTF8'), 'hex'), encode(convert_to(platform, 'UTF8'), 'hex'),
                   encode(convert_to(sdk, 'UTF8'), 'hex'), encode(convert_to(device_id, 'UTF8'), 'hex')
            FROM events
            """).rows
        let hex = { (s: String) in SHA256.hexString(Array(s.utf8)) }
        let stored = Set(rows.map { [$0[0], $0[1], $0[2], $0[3]].compactMap { $0 } })
        let expected = Set(Self.hostile.enumerated().map { i, text in
            [hex(text), hex(Self.hostile[(i + 1) % Self.hostile.count]), hex(text), hex(text)]
        })
        #expect(stored == expected)
        for row in rows {
            #expect(Array(row[4...7]) == [hex("1.0\t\"beta\"\\"), hex("iOS\n"), hex(Self.hostile[5]), hex(Self.hostile[14])])
        }
    }

    @Test func hostileManifestsRoundTripByteExact() throws {
        let harness = try Harness()
        let app = try harness.database.createApp()
        let categories: [JSONValue] = Self.hostile.enumerated().map { i, text in
            .object([
                ("identifier", .string(text)), ("title", .string(Self.hostile[(i + 3) % Self.hostile.count])),
                ("options", .array([.string(text), "customDismissAction"])),
                ("actions", .array([.object([("identifier", .string(Self.hostile[(i + 1) % Self.hostile.count])),
                                             ("title", .string(text)), ("options", .array([.string(Self.hostile[(i + 2) % Self.hostile.count])]))])])),
            ])
        }
        let manifest = JSONValue.object([("appVersion", .string(Self.hostile[1])), ("categories", .array(categories))]).serializedBytes()
        let response = try harness.client.post("/v1/categories", key: app.writeKey.text, json: manifest)
        #expect(response.status == 200, "\(response.text)")
        let hex = { (s: String) in SHA256.hexString(Array(s.utf8)) }
        let stored = try harness.database.query("""
            SELECT encode(convert_to(category, 'UTF8'), 'hex'), encode(convert_to(title, 'UTF8'), 'hex'),
                   (SELECT string_agg(encode(convert_to(o, 'UTF8'), 'hex'), ',' ORDER BY n) FROM unnest(options) WITH ORDINALITY u(o, n))
            FROM manifest_categories
            """).rows.map { $0.compactMap { $0 } }
        let expected = Self.hostile.enumerated().map { i, text -> [String] in
            let options = Array(Set([text, "customDismissAction"]))
            return [hex(text), hex(Self.hostile[(i + 3) % Self.hostile.count]), options.map(hex).joined(separator: ",")]
        }
        // Option lists are stored as posted (order kept); compare categories and titles exactly,
        // options as sets.
        #expect(Set(stored.map { Array($0.prefix(2)) }) == Set(expected.map { Array($0.prefix(2)) }))
        #expect(Set(stored.map { Set($0[2].split(separator: ",")) }) == Set(expected.map { Set($0[2].split(separator: ",")) }))
        let actions = try harness.database.query("""
            SELECT encode(convert_to(category, 'UTF8'), 'hex'), encode(convert_to(action, 'UTF8'), 'hex'),
                   encode(convert_to(title, 'UTF8'), 'hex'), encode(convert_to(options[1], 'UTF8'), 'hex')
            FROM manifest_actions
            """).rows.map { $0.compactMap { $0 } }
        #expect(Set(actions) == Set(Self.hostile.enumerated().map { i, text in
            [hex(text), hex(Self.hostile[(i + 1) % Self.hostile.count]), hex(text), hex(Self.hostile[(i + 2) % Self.hostile.count])]
        }))
        // The jsonb copy decodes to the same manifest (reports read it back).
        let current = try ManifestStore().currentManifests(appId: app.appId, on: try harness.database.connect())
        #expect(current[Self.hostile[1]]?.categories.map(\.identifier).sorted() == Self.hostile.sorted())
    }

    @Test func aNULGetsAClearPerEventRejection() throws {
        let harness = try Harness()
        let app = try harness.database.createApp()
        let fields = ["category", "actionIdentifier", "notificationId", "campaign", "variant"]
        var events: [JSONValue] = fields.map { field in
            var extra: [(String, JSONValue)] = [("actionIdentifier", field == "actionIdentifier" ? "re\u{0}ply" : "reply")]
            if field != "category", field != "actionIdentifier" { extra.append((field, .string("x\u{0}y"))) }
            return TestBatch.event("response", category: field == "category" ? "bad\u{0}cat" : "message", extra)
        }
        events.append(TestBatch.event())
        let response = try harness.client.post("/v1/batch", key: app.writeKey.text, json: TestBatch.body(events))
        #expect(response.status == 200)
        let rejected = try #require(response.json?["rejected"]?.arrayValue)
        #expect(rejected.count == fields.count)
        for (entry, field) in zip(rejected, fields) {
            #expect(entry["code"]?.stringValue == "nul_character")
            #expect(entry["reason"]?.stringValue?.contains(field) == true, "\(entry)")
            #expect(entry["reason"]?.stringValue?.contains("\u{0}") == false)
        }
        #expect(response.json?["accepted"]?.numberValue?.integer == 1)
        // In a manifest or the shared context: the whole request, with the field named.
        let manifest = try harness.client.post("/v1/categories", key: app.writeKey.text,
                                               json: Array(#"{"appVersion":"1","categories":[{"identifier":"a\u0000b"}]}"#.utf8))
        #expect(manifest.status == 400)
        #expect(manifest.errorCode == "invalid_manifest")
        #expect(manifest.json?["error"]?["message"]?.stringValue?.contains("NUL") == true)
        let context = try harness.client.post("/v1/batch", key: app.writeKey.text,
                                              json: TestBatch.body([TestBatch.event()], context: [("appVersion", "1\u{0}")]))
        #expect(context.errorCode == "invalid_batch")
        #expect(context.json?["error"]?["message"]?.stringValue?.contains("appVersion") == true)
    }
}

extension SHA256 {
    /// Lowercase hex of the bytes themselves (not a digest), for comparing stored text byte-exact.
    static func hexString(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }
}
