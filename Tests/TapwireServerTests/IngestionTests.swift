import Foundation
import Testing
import TapwireCore
@testable import TapwireServer
import TapwireStore
import TapwireTestSupport
import TapwireZlib

@Suite struct IngestionTests {
    @Test func gzipBatchIsStoredFieldByField() throws {
        let server = try TestCollector.start()
        let app = try server.database.createApp()
        let id = EventID.v7(at: .now)
        let sentAt = Timestamp.now
        let deviceTime = sentAt.adding(seconds: -30)
        let body = TestBatch.body([
            TestBatch.event("response", id: id, at: deviceTime, category: "message", [
                ("notificationId", "apns-42"), ("actionIdentifier", "reply"), ("userTextLength", 14), ("hasMedia", true),
                ("mediaTypes", ["image"]), ("mediaRequested", true), ("categoryRegistered", true), ("campaign", "winter-sale"),
                ("variant", "B"), ("deliveredAt", .string(deviceTime.adding(seconds: -60).description)),
            ]),
        ], sentAt: sentAt, context: [("appVersion", "3.2.1"), ("build", "412"), ("platform", "iOS"), ("osVersion", "18.1"), ("sdk", "tapwire-swift/1.0")])
        let response = try server.client().post("/v1/batch", key: app.writeKey.text, json: body)
        #expect(response.status == 200)
        #expect(response.json?["accepted"]?.numberValue?.integer == 1)
        #expect(response.json?["duplicates"]?.numberValue?.integer == 0)
        #expect(response.json?["rejected"]?.arrayValue?.isEmpty == true)
        let row = try #require(try server.database.query("""
            SELECT app_id, event_id::text, type::text, notification_id, category, action_identifier, user_text_length, has_media,
                   media_types, media_requested, category_registered, campaign, variant, app_version, build, platform, os_version, sdk,
                   extract(epoch from device_time - delivered_at)::int, abs(extract(epoch from (received_at - event_time)))::int
            FROM events
            """).rows.first)
        #expect(row[0] == String(app.appId))
        #expect(row[1] == id.description)
        #expect(Array(row[2...17]) == ["response", "apns-42", "message", "reply", "14", "t", "1", "t", "t", "winter-sale", "B",
                                       "3.2.1", "412", "iOS", "18.1", "tapwire-swift/1.0"])
        #expect(row[18] == "60")
        // sentAt - timestamp = 30 s, so the event happened about 30 s before it was received.
        #expect(row[19] == "30")
    }

    @Test func badKeysGet401AndReadKeysCannotPost() throws {
        let server = try TestCollector.start()
        let app = try server.database.createApp()
        let body = TestBatch.body([TestBatch.event()])
        let client = server.client()
        let missing = try client.post("/v1/batch", key: nil, json: body)
        #expect(missing.status == 401)
        #expect(missing.errorCode == "unauthorized")
        #expect(missing.headers["www-authenticate"]?.contains("Basic") == true)
        let wrong = try client.post("/v1/batch", key: APIKey.generate(kind: .write).text, json: body)
        #expect(wrong.status == 401)
        let garbage = try client.request("POST", "/v1/batch", headers: ["Authorization": "Basic !!!"], body: body)
        #expect(garbage.status == 401)
        let readKey = try client.post("/v1/batch", key: app.readKey.text, json: body)
        #expect(readKey.status == 403)
        #expect(readKey.errorCode == "forbidden")
        // No error body echoes the key it was given.
        for response in [wrong, readKey] {
            #expect(!response.text.contains(app.readKey.secret))
        }
        #expect(try server.database.query("SELECT count(*) FROM events").scalar == "0")
    }

    @Test func eventsAreStoredUnderTheKeysAppWhateverTheBodySays() throws {
        let server = try TestCollector.start()
        let a = try server.database.createApp("app-a")
        let b = try server.database.createApp("app-b")
        let body = Array(#"{"app": "app-b", "appId": \#(b.appId), "events": [\#(TestBatch.event().serialized())]}"#.utf8)
        let response = try server.client().post("/v1/batch", key: a.writeKey.text, json: body)
        #expect(response.status == 200)
        #expect(try server.database.query("SELECT app_id FROM events").rows.map { $0[0] } == [String(a.appId)])
    }

    @Test func contentLengthOverTheLimitIs413BeforeTheBodyIsRead() throws {
        let server = try TestCollector.start()
        let app = try server.database.createApp()
        let connection = try TestConnection(port: server.port, timeout: 10)
        defer { connection.close() }
        // Only the headers are sent; the server must answer without waiting for 2 MiB of body.
        try connection.send(HTTPTestClient.head("POST", "/v1/batch", headers: [
            "Authorization": HTTPTestClient.basic(app.writeKey.text), "Content-Encoding": "gzip",
        ], contentLength: 2 << 20))
        let response = try connection.readResponse()
        #expect(response.status == 413)
        #expect(response.errorCode == "payload_too_large")
    }

    @Test func gzipBombIs413WithBoundedMemory() throws {
        let server = try TestCollector.start()
        let app = try server.database.createApp()
        // About 1 GiB of zeros compresses to about 1 MiB; send it as concatenated gzip members,
        // each under the wire limit when put together.
        let member = try Zlib.compress([UInt8](repeating: 0, count: 64 << 20), format: .gzip, level: 9)
        var bomb: [UInt8] = []
        while bomb.count + member.count < (1 << 20) - 1024 { bomb += member }
        #expect(bomb.count > 900_000)
        let before = ResidentMemory.current()
        let response = try server.client().request("POST", "/v1/batch", headers: [
            "Authorization": HTTPTestClient.basic(app.writeKey.text), "Content-Encoding": "gzip",
        ], body: bomb)
        #expect(response.status == 413)
        #expect(response.errorCode == "decompressed_too_large")
        let grown = ResidentMemory.current() - before
        #expect(grown < 100 << 20, "server memory grew by \(grown >> 20) MiB")
    }

    @Test func unsupportedEncodingIs415() throws {
        let server = try TestCollector.start()
        let app = try server.database.createApp()
        let response = try server.client().post("/v1/batch", key: app.writeKey.text, json: TestBatch.body([TestBatch.event()]), encoding: "br")
        #expect(response.status == 415)
        #expect(response.errorCode == "unsupported_encoding")
    }

    @Test func corruptAndTruncatedGzipAre400() throws {
        let server = try TestCollector.start()
        let app = try server.database.createApp()
        let good = try Zlib.compress(TestBatch.body([TestBatch.event()]), format: .gzip)
        var corrupt = good
        for i in 12..<min(40, corrupt.count) { corrupt[i] ^= 0x5A }
        for body in [Array(good.prefix(good.count / 2)), corrupt, Array("not gzip at all".utf8)] {
            let response = try server.client().request("POST", "/v1/batch", headers: [
                "Authorization": HTTPTestClient.basic(app.writeKey.text), "Content-Encoding": "gzip",
            ], body: body)
            #expect(response.status == 400)
            #expect(response.errorCode == "invalid_compression")
        }
    }

    @Test func deflateBothFlavoursAndIdentityAreAccepted() throws {
        let server = try TestCollector.start()
        let app = try server.database.createApp()
        let client = server.client()
        #expect(try client.post("/v1/batch", key: app.writeKey.text, json: TestBatch.body([TestBatch.event()]), encoding: "deflate").status == 200)
        let raw = try Zlib.compress(TestBatch.body([TestBatch.event()]), format: .rawDeflate)
        #expect(try client.request("POST", "/v1/batch", headers: ["Authorization": HTTPTestClient.basic(app.writeKey.text),
                                                                   "Content-Encoding": "deflate"], body: raw).status == 200)
        #expect(try client.post("/v1/batch", key: app.writeKey.text, json: TestBatch.body([TestBatch.event()]), encoding: nil).status == 200)
        #expect(try server.database.query("SELECT count(*) FROM events").scalar == "3")
    }

    @Test func malformedJSONAndInvalidUTF8Are400() throws {
        let server = try TestCollector.start()
        let app = try server.database.createApp()
        let client = server.client()
        let malformed = try client.post("/v1/batch", key: app.writeKey.text, json: Array(#"{"events": [}"#.utf8))
        #expect(malformed.status == 400)
        #expect(malformed.errorCode == "malformed_json")
        let utf8 = try client.post("/v1/batch", key: app.writeKey.text, json: Array(#"{"events": [], "x": ""#.utf8) + [0xC3, 0x28, 0x22, 0x7D])
        #expect(utf8.status == 400)
        #expect(utf8.errorCode == "invalid_utf8")
        let notBatch = try client.post("/v1/batch", key: app.writeKey.text, json: Array("[1,2]".utf8))
        #expect(notBatch.status == 400)
        #expect(notBatch.errorCode == "invalid_batch")
    }

    @Test func threeBadEventsAmongTenLeaveSevenStored() throws {
        let server = try TestCollector.start()
        let app = try server.database.createApp()
        var events = (0..<10).map { _ in TestBatch.event() }
        events[2] = TestBatch.event("response") // no actionIdentifier
        events[5] = TestBatch.event("delivered", category: "bad\u{0}category")
        events[8] = TestBatch.event("bogus")
        let response = try server.client().post("/v1/batch", key: app.writeKey.text, json: TestBatch.body(events))
        #expect(response.status == 200)
        #expect(response.json?["accepted"]?.numberValue?.integer == 7)
        let rejected = try #require(response.json?["rejected"]?.arrayValue)
        #expect(rejected.compactMap { $0["index"]?.numberValue?.integer } == [2, 5, 8])
        #expect(rejected.allSatisfy { ($0["reason"]?.stringValue?.isEmpty == false) && $0["eventId"]?.stringValue != nil })
        #expect(rejected[1]["code"]?.stringValue == "nul_character")
        #expect(try server.database.query("SELECT count(*) FROM events").scalar == "7")
        #expect(server.metrics.value(CollectorMetrics.eventsRejected, ["nul_character"]) == 1)
    }

    @Test func theSameBatchTwiceIsStoredOnceAndCountsDuplicates() throws {
        let server = try TestCollector.start()
        let app = try server.database.createApp()
        let body = TestBatch.body((0..<20).map { _ in TestBatch.event() })
        let first = try server.client().post("/v1/batch", key: app.writeKey.text, json: body)
        let second = try server.client().post("/v1/batch", key: app.writeKey.text, json: body)
        #expect(first.json?["accepted"]?.numberValue?.integer == 20)
        #expect(second.json?["accepted"]?.numberValue?.integer == 0)
        #expect(second.json?["duplicates"]?.numberValue?.integer == 20)
        #expect(try server.database.query("SELECT count(*) FROM events").scalar == "20")
    }

    @Test func twoCollectorsOnOneDatabaseStoreARetriedBatchOnce() throws {
        let database = try TestDatabase.create()
        let one = try TestCollector(database: database)
        let two = try TestCollector(database: database)
        let app = try database.createApp()
        let bodies = (0..<10).map { _ in TestBatch.body((0..<200).map { _ in TestBatch.event() }) }
        let outcomes = Tally()
        DispatchQueue.concurrentPerform(iterations: 20) { i in
            let server = i % 2 == 0 ? one : two
            do {
                let response = try server.client().post("/v1/batch", key: app.writeKey.text, json: bodies[i / 2])
                outcomes.add(accepted: Int(response.json?["accepted"]?.numberValue?.integer ?? -1000),
                             duplicates: Int(response.json?["duplicates"]?.numberValue?.integer ?? -1000))
            } catch {
                outcomes.add(accepted: -1000, duplicates: 0)
            }
        }
        #expect(outcomes.accepted == 2000)
        #expect(outcomes.duplicates == 2000)
        #expect(try database.query("SELECT count(*), count(DISTINCT event_id) FROM events").rows.first! == ["2000", "2000"])
    }

    /// The fold loop summarises the BRIN ranges of events that commits fill (migration 0070):
    /// soon after a post, a read by time that matches no row scans at most the last, partly
    /// filled range, not the whole day's pages.
    @Test func theFoldLoopSummarisesTheRangesCommitsFill() throws {
        let server = try TestCollector.start()
        let app = try server.database.createApp()
        // The events are dated in one UTC day, yesterday at noon, whenever the test runs: dated
        // now, a run across midnight put them in two partitions (neither of 64 pages) or in one
        // other than the partition measured, whose autovacuum was left on.
        let day = Timestamp.now.utcDay - 1
        let noon = Timestamp.startOfUTCDay(day).adding(seconds: 12 * 3600)
        // Autovacuum would summarise the ranges too (a VACUUM does): off for that day's partition,
        // so only the fold loop can make this pass.
        let partition = try EventsPartition.withoutAutovacuum(server.database, day: day)
        for _ in 0..<10 {
            let response = try server.client().post("/v1/batch", key: app.writeKey.text,
                                                    json: TestBatch.body((0..<500).map { i in TestBatch.event(at: noon.adding(seconds: Double(i))) }))
            #expect(response.status == 200)
        }
        let pages = Int(try server.database.query("SELECT pg_relation_size(to_regclass($1)) / 8192", [partition]).scalar ?? "") ?? 0
        #expect(pages >= 64, "enough rows for two whole ranges of 32 pages")
        let reader = try server.database.connect()
        defer { reader.close() }
        try reader.query("SET enable_seqscan = off") // the read a large partition would get
        var scanned = Int.max
        var plan: [String] = []
        // A hang guard, not a bound (docs/testing.md): the loop ends as soon as the fold loop
        // (every 2 s) has summarised; a loaded machine gets there later, not otherwise.
        let deadline = Date().addingTimeInterval(120)
        while scanned > 32, Date() < deadline {
            Thread.sleep(forTimeInterval: 0.2)
            plan = try reader.query("""
                EXPLAIN (ANALYZE, TIMING OFF, COSTS OFF) SELECT count(*) FROM events
                WHERE app_id = -1 AND event_time >= $1::timestamptz
                """, [noon.adding(seconds: -3600).description]).rows.compactMap { $0[0] }
            #expect(plan.contains { $0.contains("Bitmap Index Scan") }, "\(plan)")
            scanned = plan.compactMap { line -> Int? in
                guard let range = line.range(of: "lossy=") else { return nil }
                return Int(line[range.upperBound...].prefix { $0.isNumber })
            }.reduce(0, +)
        }
        #expect(scanned <= 32, "a read matching nothing scanned \(scanned) of \(pages) pages:\n\(plan.joined(separator: "\n"))")
    }

    /// A failing BRIN summary call does not hold up the folds after it, and is logged once,
    /// not at every fold.
    @Test func theFoldsGoOnWhenSummarisingFails() throws {
        let server = try TestCollector.start { $0.rollupFoldMilliseconds = 200 }
        try server.database.query("DROP FUNCTION tapwire_summarize_recent_event_ranges()")
        let app = try server.database.createApp()
        let response = try server.client().post("/v1/batch", key: app.writeKey.text, json: TestBatch.body((0..<20).map { _ in TestBatch.event() }))
        #expect(response.status == 200)
        // Waits are hang guards (docs/testing.md): a loaded machine folds less often, not otherwise.
        let folded = try eventually(timeout: 120, poll: 0.1) {
            try server.database.query("SELECT count(*) FROM rollup_totals WHERE app_id = $1::bigint", [String(app.appId)]).scalar != "0"
        }
        #expect(folded, "the commit's deltas were folded")
        // Three more folds, counted, not a second's worth: each fold is counted before its call
        // of the summary function, so the fold after a call started once that call had failed.
        // A second of sleep let a loaded machine fold once or not at all, and the test pass
        // whether the warning came once or at every fold.
        let before = server.foldsDone
        #expect(eventually(timeout: 120, poll: 0.1) { server.foldsDone >= before + 3 }, "three more folds")
        let warnings = server.logs.capturedLines.filter { $0.contains("summarising the BRIN ranges of events failed") }
        #expect(warnings.count == 1, "\(warnings)")
        #expect(!server.logs.capturedLines.contains { $0.contains("rollup fold failed") })
    }

    /// The fold starts once `rollupFoldEvents` new events were stored since the last one, long
    /// before its interval ends; duplicates store nothing and do not count (docs/ingestion.md,
    /// "The fold's cadence"). No reader wakes it: the monitor is off, the interval an hour.
    @Test func storedEventsStartTheFoldBeforeItsInterval() throws {
        let server = try TestCollector.start {
            $0.rollupFoldMilliseconds = 3_600_000
            $0.rollupFoldEvents = 20
            $0.findingsMonitor = false
        }
        #expect(server.firstFoldDone(), "the fold's first pass, at start")
        let app = try server.database.createApp()
        let pending = { try server.database.query("SELECT count(*) FROM rollup_delta_batches WHERE app_id = $1::bigint", [String(app.appId)]).scalar }
        let nineteen = (0..<19).map { _ in TestBatch.event() }
        #expect(try server.client().post("/v1/batch", key: app.writeKey.text, json: TestBatch.body(nineteen)).status == 200)
        #expect(try server.client().post("/v1/batch", key: app.writeKey.text, json: TestBatch.body(nineteen)).status == 200)
        // 19 stored, 19 duplicates: no fold is due, so the commit's deltas are still pending.
        #expect(try pending() != "0", "19 stored events started no fold")
        #expect(try server.client().post("/v1/batch", key: app.writeKey.text, json: TestBatch.body([TestBatch.event()])).status == 200)
        // Waits are hang guards (docs/testing.md): the 20th stored event wakes the fold.
        #expect(try eventually(timeout: 120, poll: 0.1) { try pending() == "0" }, "the 20th stored event started a fold")
        #expect(try server.database.query("SELECT count(*) FROM rollup_totals WHERE app_id = $1::bigint", [String(app.appId)]).scalar != "0")
    }

    @Test func aClockTwoHoursFastIsCorrected() throws {
        let server = try TestCollector.start()
        let app = try server.database.createApp()
        let now = Timestamp.now
        let fast = now.adding(seconds: 7200)
        let body = TestBatch.body([TestBatch.event(at: fast.adding(seconds: -60))], sentAt: fast)
        #expect(try server.client().post("/v1/batch", key: app.writeKey.text, json: body).status == 200)
        let row = try #require(try server.database.query(
            "SELECT extract(epoch from event_time)::float8, extract(epoch from device_time)::float8 FROM events").rows.first)
        let stored = Double(row[0]!)!, device = Double(row[1]!)!
        #expect(abs(stored - (now.secondsSince1970 - 60)) < 5)
        #expect(abs(device - (fast.secondsSince1970 - 60)) < 0.01)
    }

    @Test func overTheRateLimitIs429WithRetryAfter() throws {
        let server = try TestCollector.start { $0.rateLimitPerSecond = 50 }
        let app = try server.database.createApp()
        let client = server.client()
        // Burst is 100: 80 pass, the next 80 do not.
        #expect(try client.post("/v1/batch", key: app.writeKey.text, json: TestBatch.body((0..<80).map { _ in TestBatch.event() })).status == 200)
        let limited = try client.post("/v1/batch", key: app.writeKey.text, json: TestBatch.body((0..<80).map { _ in TestBatch.event() }))
        #expect(limited.status == 429)
        #expect(limited.errorCode == "rate_limited")
        #expect(Int(limited.headers["retry-after"] ?? "") ?? 0 >= 1)
        // Another app's key has its own bucket.
        let other = try server.database.createApp()
        #expect(try client.post("/v1/batch", key: other.writeKey.text, json: TestBatch.body((0..<80).map { _ in TestBatch.event() })).status == 200)
    }

    @Test func aStalledUploadGets408() throws {
        let server = try TestCollector.start { $0.http.stalledUploadSeconds = 1 }
        let app = try server.database.createApp()
        let connection = try TestConnection(port: server.port, timeout: 10)
        defer { connection.close() }
        try connection.send(HTTPTestClient.head("POST", "/v1/batch", headers: ["Authorization": HTTPTestClient.basic(app.writeKey.text)],
                                                contentLength: 1000) + Array("{\"events\": [".utf8))
        let started = Date()
        let response = try connection.readResponse()
        #expect(response.status == 408)
        #expect(response.errorCode == "request_timeout")
        #expect(Date().timeIntervalSince(started) < 8)
        // The server is fine afterwards.
        #expect(try server.client().get("/healthz").status == 200)
    }

    @Test func aSlowlorisUploadGets408AtTheDeadline() throws {
        let server = try TestCollector.start {
            $0.http.stalledUploadSeconds = 5
            $0.http.uploadDeadlineSeconds = 2
        }
        let app = try server.database.createApp()
        let connection = try TestConnection(port: server.port, timeout: 10)
        defer { connection.close() }
        try connection.send(HTTPTestClient.head("POST", "/v1/batch", headers: ["Authorization": HTTPTestClient.basic(app.writeKey.text)],
                                                contentLength: 1000))
        // One byte every 300 ms never stalls, but never finishes either.
        let senderEnded = DispatchSemaphore(value: 0)
        let sender = Thread {
            defer { senderEnded.signal() }
            for byte in Array(String(repeating: " ", count: 30).utf8) {
                Thread.sleep(forTimeInterval: 0.3)
                if (try? connection.send([byte])) == nil { return }
            }
        }
        sender.start()
        // The sender ends (its next send fails) before the test does: it once outlived the
        // connection and wrote a byte into whatever socket took the descriptor number next.
        defer {
            connection.close()
            senderEnded.wait()
        }
        let response = try connection.readResponse()
        #expect(response.status == 408)
    }

    @Test func unknownPathsAndMethodsAreJSONErrors() throws {
        let server = try TestCollector.start()
        let client = server.client()
        let missing = try client.get("/v2/nothing")
        #expect(missing.status == 404)
        #expect(missing.errorCode == "not_found")
        let method = try client.get("/v1/batch")
        #expect(method.status == 405)
        #expect(method.headers["allow"] == "POST")
        #expect(try client.get("/healthz").json?["status"]?.stringValue == "ok")
        #expect(try client.get("/readyz").status == 200)
    }

    @Test func keepAliveServesManyRequestsOnOneConnection() throws {
        let server = try TestCollector.start()
        let app = try server.database.createApp()
        let connection = try TestConnection(port: server.port)
        defer { connection.close() }
        for _ in 0..<5 {
            let body = try Zlib.compress(TestBatch.body([TestBatch.event()]))
            try connection.send(HTTPTestClient.head("POST", "/v1/batch", headers: [
                "Authorization": HTTPTestClient.basic(app.writeKey.text), "Content-Encoding": "gzip",
            ], contentLength: body.count) + body)
            #expect(try connection.readResponse().status == 200)
        }
        #expect(try server.database.query("SELECT count(*) FROM events").scalar == "5")
    }

    @Test func manifestsAreStoredAndDeduplicated() throws {
        let server = try TestCollector.start()
        let app = try server.database.createApp()
        let manifest = Array(#"{"appVersion": "3.2.1", "categories": [{"identifier": "message", "options": ["customDismissAction"], "actions": [{"identifier": "reply", "textInput": true}]}]}"#.utf8)
        let first = try server.client().post("/v1/categories", key: app.writeKey.text, json: manifest)
        #expect(first.status == 200)
        #expect(first.json?["created"]?.boolValue == true)
        let again = try server.client().post("/v1/categories", key: app.writeKey.text, json: manifest)
        #expect(again.json?["created"]?.boolValue == false)
        #expect(again.json?["contentHash"] == first.json?["contentHash"])
        let bad = try server.client().post("/v1/categories", key: app.writeKey.text, json: Array(#"{"categories": []}"#.utf8))
        #expect(bad.status == 400)
        #expect(bad.errorCode == "invalid_manifest")
        #expect(try server.database.query("SELECT count(*) FROM manifests").scalar == "1")
    }

    @Test func tooManyEventsIs413() throws {
        let server = try TestCollector.start()
        let app = try server.database.createApp()
        let response = try server.client().post("/v1/batch", key: app.writeKey.text, json: TestBatch.body((0..<2001).map { _ in TestBatch.event() }))
        #expect(response.status == 413)
        #expect(response.errorCode == "too_many_events")
    }

    @Test func metricsExposeIngestionCounters() throws {
        let server = try TestCollector.start()
        let app = try server.database.createApp()
        _ = try server.client().post("/v1/batch", key: app.writeKey.text, json: TestBatch.body([TestBatch.event()]))
        // Requests are counted when MHD reports them complete, just after the response is sent.
        var text = ""
        _ = try eventually(timeout: 60) {
            text = try server.client().get("/metrics").text
            return text.contains(#"tapwire_http_requests_total{route="/v1/batch",status="200"} 1"#)
        }
        #expect(text.contains(#"tapwire_http_requests_total{route="/v1/batch",status="200"} 1"#))
        #expect(text.contains(#"tapwire_events_accepted_total{type="delivered"} 1"#))
        #expect(text.contains("tapwire_commit_queue_events"))
        #expect(text.contains("# TYPE tapwire_batch_commit_duration_seconds histogram"))
    }
}

/// Sums from concurrent requests.
final class Tally: Sendable {
    private let state = Mutex<(accepted: Int, duplicates: Int)>((0, 0))
    func add(accepted: Int, duplicates: Int) { state.withLock { $0.accepted += accepted; $0.duplicates += duplicates } }
    var accepted: Int { state.withLock { $0.accepted } }
    var duplicates: Int { state.withLock { $0.duplicates } }
}

import Synchronization

/// This process's resident memory, from /proc.
enum ResidentMemory {
    static func current() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
              let kb = Int(line.split(separator: " ").dropFirst().first ?? "")
        else { return 0 }
        return kb * 1024
    }
}
