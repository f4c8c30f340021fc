import Foundation
import Testing
import TapwireCore
import TapwireFuzz
import TapwireServer
import TapwireStore
import TapwireTestSupport
import TapwireZlib

/// The README's table of hostile inputs, each sent to a real collector over loopback. Cases
/// already covered by TapwireServerTests (gzip bomb, corrupt gzip, malformed JSON, 2,001
/// events) are not repeated; each test here names the row it backs.
@Suite struct HostileInputTests {
    func post(_ server: TestCollector, _ key: String, _ json: String, encoding: String? = "gzip") throws -> TestResponse {
        try server.client().post("/v1/batch", key: key, json: Array(json.utf8), encoding: encoding)
    }

    static func event(_ extra: String = "", type: String = "delivered", timestamp: String? = nil) -> String {
        let t = timestamp ?? Timestamp.now.adding(seconds: -5).description
        var text = #"{"eventId":"\#(EventID.v7(at: .now))","type":"\#(type)","timestamp":"\#(t)","category":"message""#
        if type == "response" { text += #","actionIdentifier":"reply""# }
        return text + extra + "}"
    }

    static func batch(_ events: [String], sentAt: String? = Timestamp.now.description, extra: String = "") -> String {
        let sent = sentAt.map { #""sentAt":"\#($0)","# } ?? ""
        return #"{\#(sent)"context":{"appVersion":"1.0","platform":"iOS"}\#(extra),"events":[\#(events.joined(separator: ","))]}"#
    }

    /// Every answer of ours is a JSON error body with a stable code.
    func expectError(_ response: TestResponse, _ status: Int, _ code: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(response.status == status, "got \(response.status): \(response.text.prefix(300))", sourceLocation: sourceLocation)
        #expect(response.errorCode == code, "got \(response.text.prefix(300))", sourceLocation: sourceLocation)
    }

    func rejectionCodes(_ response: TestResponse) -> [String] {
        response.json?["rejected"]?.arrayValue?.compactMap { $0["code"]?.stringValue } ?? []
    }

    // MARK: zip bombs, truncated streams

    @Test func deflateBombIs413() throws {
        let server = try TestCollector.start()
        let app = try server.database.createApp()
        let member = try Zlib.compress([UInt8](repeating: 0x20, count: 200 << 20), format: .zlib, level: 9)
        #expect(member.count < 1 << 20)
        let response = try server.client().request("POST", "/v1/batch", headers: [
            "Authorization": HTTPTestClient.basic(app.writeKey.text), "Content-Encoding": "deflate",
        ], body: member)
        expectError(response, 413, "decompressed_too_large")
        #expect(try server.client().get("/healthz").status == 200)
    }

    @Test func truncatedDeflateIs400AndABodyCutShortStoresNothing() throws {
        let server = try TestCollector.start()
        let app = try server.database.createApp()
        let full = try Zlib.compress(Array(Self.batch([Self.event()]).utf8), format: .rawDeflate)
        let response = try server.client().request("POST", "/v1/batch", headers: [
            "Authorization": HTTPTestClient.basic(app.writeKey.text), "Content-Encoding": "deflate",
        ], body: Array(full.prefix(full.count - 3)))
        expectError(response, 400, "invalid_compression")
        // The client promises 5,000 bytes, sends 100 and hangs up: nothing can be stored.
        let connection = try TestConnection(port: server.port, timeout: 5)
        let body = Array(Self.batch([Self.event()]).utf8)
        try connection.send(HTTPTestClient.head("POST", "/v1/batch", headers: ["Authorization": HTTPTestClient.basic(app.writeKey.text)],
                                                contentLength: 5000) + body.prefix(100))
        connection.close()
        Thread.sleep(forTimeInterval: 0.5)
        #expect(try server.database.query("SELECT count(*) FROM events").scalar == "0")
        #expect(try post(server, app.writeKey.text, Self.batch([Self.event()])).status == 200)
    }

    // MARK: invalid UTF-8

    @Test func invalidUTF8InEveryFormIs400() throws {
        let server = try TestCollector.start()
        let app = try server.database.createApp()
        let prefix = Array(#"{"events":[],"context":{"appVersion":""#.utf8), suffix = Array(#""}}"#.utf8)
        for bad: [UInt8] in [[0xC0, 0x80], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xFF], [0xE2, 0x82]] {
            let response = try server.client().post("/v1/batch", key: app.writeKey.text, json: prefix + bad + suffix)
            expectError(response, 400, "invalid_utf8")
        }
        let escaped = try post(server, app.writeKey.text, Self.batch([Self.event(#","campaign":"\ud800""#)]))
        expectError(escaped, 400, "invalid_utf8")
        #expect(try server.database.query("SELECT count(*) FROM events").scalar == "0")
    }

    // MARK: deeply nested JSON

    @Test func deeplyNestedJSONIs400() throws {
        let server = try TestCollector.start()
        let app = try server.database.createApp()
        let deep = #"{"events":["# + String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000) + "]}"
        expectError(try post(server, app.writeKey.text, deep), 400, "json_too_deep")
        let deepObject = Self.batch([Self.event(#","x":"# + String(repeating: #"{"a":"#, count: 40) + "1" + String(repeating: "}", count: 40))])
        expectError(try post(server, app.writeKey.text, deepObject), 400, "json_too_deep")
        // Unknown fields are ignored, so an event with 25 levels inside one is stored.
        let shallow = Self.batch([Self.event(#","x":"# + String(repeating: "[", count: 25) + String(repeating: "]", count: 25))])
        #expect(try post(server, app.writeKey.text, shallow).json?["accepted"]?.numberValue?.integer == 1)
    }

    // MARK: 10 MB strings

    @Test func tenMegabyteStrings() throws {
        let server = try TestCollector.start()
        let app = try server.database.createApp()
        let ten = String(repeating: "a", count: 10 << 20)
        // Uncompressed: refused on its Content-Length, before the body is read (only the head is sent).
        let connection = try TestConnection(port: server.port, timeout: 10)
        defer { connection.close() }
        try connection.send(HTTPTestClient.head("POST", "/v1/batch", headers: ["Authorization": HTTPTestClient.basic(app.writeKey.text)],
                                                contentLength: ten.utf8.count + 200) + Array(#"{"events":[{"campaign":""#.utf8))
        expectError(try connection.readResponse(), 413, "payload_too_large")
        // gzip makes it 10 KiB on the wire; inflating stops at the 8 MiB cap.
        expectError(try post(server, app.writeKey.text, Self.batch([Self.event(#","campaign":"\#(ten)""#)])), 413, "decompressed_too_large")
        // 7 MiB fits the cap: that one event is refused, the other is stored.
        let seven = String(repeating: "b", count: 7 << 20)
        let response = try post(server, app.writeKey.text, Self.batch([Self.event(#","campaign":"\#(seven)""#), Self.event()]))
        #expect(response.status == 200)
        #expect(rejectionCodes(response) == ["event_too_large"])
        #expect(response.json?["accepted"]?.numberValue?.integer == 1)
        #expect(response.text.utf8.count < 2000, "the answer must not echo the string")
        // In the context (shared by every event) it fails the batch, with a short message.
        let context = try post(server, app.writeKey.text, #"{"context":{"appVersion":"\#(seven)"},"events":[\#(Self.event())]}"#)
        expectError(context, 400, "invalid_batch")
        #expect(context.text.utf8.count < 2000)
        #expect(try server.database.query("SELECT count(*) FROM events").scalar == "1")
    }

    // MARK: NaN and huge numbers

    @Test func nanInfinityAndHugeNumbers() throws {
        let server = try TestCollector.start()
        let app = try server.database.createApp()
        for literal in ["NaN", "Infinity", "-Infinity", "+1", "0x10", "01"] {
            expectError(try post(server, app.writeKey.text, Self.batch([Self.event(#","userTextLength":\#(literal)"#, type: "response")])),
                        400, "malformed_json")
        }
        let numbers = ["1e308", "1e999", "-1e999", "123456789012345678901234567890", "9223372036854775808", "1048577", "2.5",
                       String(repeating: "7", count: 30_000), String(repeating: "7", count: 1_000_000)]
        let started = Date()
        let response = try post(server, app.writeKey.text, Self.batch(numbers.map { Self.event(#","userTextLength":\#($0)"#, type: "response") }))
        #expect(Date().timeIntervalSince(started) < 10)
        #expect(response.status == 200)
        // The million-digit number makes its event larger than 32 KiB.
        #expect(rejectionCodes(response) == Array(repeating: "invalid_field", count: numbers.count - 1) + ["event_too_large"])
        let ok = try post(server, app.writeKey.text, Self.batch(["0", "-0", "1048576", "14.0", "1.4e1"].map { Self.event(#","userTextLength":\#($0)"#, type: "response") }))
        #expect(ok.json?["accepted"]?.numberValue?.integer == 5)
        #expect(try server.database.query("SELECT array_agg(user_text_length ORDER BY user_text_length)::text FROM events").scalar == "{0,0,14,14,1048576}")
    }

    // MARK: duplicate keys, wrong types, negative lengths

    @Test func duplicateKeysAtEveryLevel() throws {
        let server = try TestCollector.start()
        let app = try server.database.createApp()
        expectError(try post(server, app.writeKey.text, Self.batch([Self.event()], extra: #","events":[]"#)), 400, "invalid_batch")
        expectError(try post(server, app.writeKey.text, #"{"context":{"platform":"iOS","platform":"watchOS"},"events":[\#(Self.event())]}"#),
                    400, "invalid_batch")
        let perEvent = try post(server, app.writeKey.text, Self.batch([Self.event(#","category":"other""#), Self.event()]))
        #expect(rejectionCodes(perEvent) == ["duplicate_key"])
        #expect(perEvent.json?["accepted"]?.numberValue?.integer == 1)
    }

    @Test func wrongTypesAreRejectedWithTheFieldNamed() throws {
        let server = try TestCollector.start()
        let app = try server.database.createApp()
        expectError(try post(server, app.writeKey.text, #"{"events":{}}"#), 400, "invalid_batch")
        expectError(try post(server, app.writeKey.text, #"{"events":[],"sentAt":12}"#), 400, "invalid_batch")
        expectError(try post(server, app.writeKey.text, #"{"events":[],"context":[]}"#), 400, "invalid_batch")
        expectError(try post(server, app.writeKey.text, #""just a string""#), 400, "invalid_batch")
        let id = EventID.v7(at: .now)
        let bad = [
            #"{"eventId":12,"type":"delivered","timestamp":"\#(Timestamp.now)"}"#,
            #"{"eventId":"\#(id)","type":["delivered"],"timestamp":"\#(Timestamp.now)"}"#,
            #"{"eventId":"\#(id)","type":"delivered","timestamp":1733000000}"#,
            Self.event(#","hasMedia":"yes""#), Self.event(#","mediaTypes":"image""#), Self.event(#","mediaTypes":["hologram"]"#),
            Self.event(#","categoryRegistered":1"#), Self.event().replacingOccurrences(of: #""category":"message""#, with: #""category":{}"#),
            "17", "null", "[]",
        ]
        let response = try post(server, app.writeKey.text, Self.batch(bad))
        #expect(response.status == 200)
        let rejected = try #require(response.json?["rejected"]?.arrayValue)
        #expect(rejected.count == bad.count)
        #expect(rejected.allSatisfy { ($0["reason"]?.stringValue ?? "").count > 10 })
        #expect(rejectionCodes(response).suffix(3) == ["not_an_object", "not_an_object", "not_an_object"])
        #expect(try server.database.query("SELECT count(*) FROM events").scalar == "0")
    }

    @Test func negativeLengths() throws {
        let server = try TestCollector.start()
        let app = try server.database.createApp()
        let response = try post(server, app.writeKey.text, Self.batch([Self.event(#","userTextLength":-1"#, type: "response")]))
        #expect(rejectionCodes(response) == ["invalid_field"])
        // A negative or absurd Content-Length is refused by the HTTP layer before any body is read.
        for length in ["-1", "-99999999999999999999", "99999999999999999999", "12abc"] {
            let connection = try TestConnection(port: server.port, timeout: 10)
            defer { connection.close() }
            var head = "POST /v1/batch HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: \(HTTPTestClient.basic(app.writeKey.text))\r\n"
            head += "Content-Length: \(length)\r\n\r\n{}"
            try connection.send(Array(head.utf8))
            let answer = try connection.readResponse()
            #expect((400...499).contains(answer.status), "Content-Length \(length): \(answer.status)")
        }
        #expect(try server.client().get("/healthz").status == 200)
    }

    // MARK: timestamps in year 9999 or 1970

    @Test func timestampsInYear9999And1970() throws {
        let server = try TestCollector.start()
        let app = try server.database.createApp()
        let old = try post(server, app.writeKey.text, Self.batch([Self.event(timestamp: "1970-01-01T00:00:00Z")]))
        #expect(rejectionCodes(old) == ["timestamp_too_old"])
        // Year 9999 from a device whose clock is right otherwise: clamped to the receive time, flagged, raw kept.
        let future = try post(server, app.writeKey.text, Self.batch([Self.event(timestamp: "9999-12-31T23:59:59.999Z")]))
        #expect(future.json?["accepted"]?.numberValue?.integer == 1)
        let row = try #require(try server.database.query(
            "SELECT time_clamped, extract(year from device_time)::int, abs(extract(epoch from received_at - event_time)) < 1 FROM events").rows.first)
        #expect(row == ["t", "9999", "t"])
        // A clock set to 9999 everywhere: sentAt says so too, so the event is corrected to now.
        let skewed = try post(server, app.writeKey.text, Self.batch([Self.event(timestamp: "9999-12-31T23:59:50Z")], sentAt: "9999-12-31T23:59:59Z"))
        #expect(skewed.json?["accepted"]?.numberValue?.integer == 1)
        // Found by the fuzzer: deliveredAt in year 0 with that sentAt corrects to 8000 BC, which
        // PostgreSQL cannot store; it used to fail the COPY and answer 500 to every retry.
        let ancient = try post(server, app.writeKey.text, Self.batch([
            Self.event(#","deliveredAt":"0000-01-01T00:00:00Z""#, type: "response", timestamp: "9999-12-31T23:59:50Z"),
            Self.event(timestamp: "9999-12-31T23:59:51Z"),
        ], sentAt: "9999-12-31T23:59:59Z"))
        #expect(ancient.status == 200, "\(ancient.status): \(ancient.text)")
        #expect(rejectionCodes(ancient) == ["invalid_field"])
        #expect(ancient.json?["accepted"]?.numberValue?.integer == 1)
        #expect(try server.database.query("SELECT count(*) FROM events").scalar == "3")
    }

    // MARK: a header flood, an oversized URL

    @Test func aHeaderFloodIsRefusedAndTheServerCarriesOn() throws {
        let server = try TestCollector.start()
        let app = try server.database.createApp()
        // 2,000 headers of 60 bytes: past the 64 KiB a connection may use, refused by libmicrohttpd.
        var head = "POST /v1/batch HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: \(HTTPTestClient.basic(app.writeKey.text))\r\n"
        for i in 0..<2000 { head += "X-Flood-\(i): \(String(repeating: "f", count: 48))\r\n" }
        head += "Content-Length: 2\r\n\r\n{}"
        let flood = Array(head.utf8)
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            guard let connection = try? TestConnection(port: server.port, timeout: 10) else { return }
            defer { connection.close() }
            _ = try? connection.send(flood)
            let response = try? connection.readResponse()
            #expect(response.map { [413, 431].contains($0.status) } ?? true, "got \(response?.status ?? 0)")
        }
        let one = try TestConnection(port: server.port, timeout: 10)
        defer { one.close() }
        try? one.send(flood)
        let answer = try one.readResponse()
        #expect([413, 431].contains(answer.status))
        // One huge header line, too.
        let huge = try server.client().request("GET", "/healthz", headers: ["X-Huge": String(repeating: "h", count: 200_000)])
        #expect([413, 431].contains(huge.status))
        // Headers that fit are served, and the collector is unharmed.
        #expect(try post(server, app.writeKey.text, Self.batch([Self.event()]), encoding: "gzip").status == 200)
        #expect(try server.client().get("/healthz").status == 200)
    }

    @Test func anOversizedURLIsRefused() throws {
        let server = try TestCollector.start()
        let app = try server.database.createApp()
        // Past the 64 KiB a connection may use, libmicrohttpd answers 414 and closes. The client
        // may see a reset instead of the answer (the rest of its URL was never read), so either counts.
        for size in [70_000, 100_000, 1 << 20] {
            let connection = try TestConnection(port: server.port, timeout: 10)
            defer { connection.close() }
            try? connection.send(Array("GET /\(String(repeating: "u", count: size)) HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
            if let answer = try? connection.readResponse() { #expect(answer.status == 414, "got \(answer.status)") }
        }
        // A long URL that fits is our JSON 404, echoing at most 100 characters of the path.
        let long = try server.client().request("GET", "/v1/" + String(repeating: "p", count: 8000) + "?app=" + String(repeating: "q", count: 8000))
        expectError(long, 404, "not_found")
        #expect(long.text.utf8.count < 500)
        // Past 32 KiB (but within what libmicrohttpd buffers) it is our JSON 414.
        expectError(try server.client().request("GET", "/v1/" + String(repeating: "p", count: 40_000)), 414, "uri_too_long")
        // 100 query parameters are parsed; 1,000 used to exhaust libmicrohttpd's connection memory
        // and hang unanswered for the idle timeout (found here), so past 100 they get 414 at once.
        let hundred = (0..<100).map { "k\($0)=v" }.joined(separator: "&")
        expectError(try server.client().request("GET", "/v1/nothing?" + hundred), 404, "not_found")
        for count in [101, 1000, 3000] {
            let params = (0..<count).map { "k\($0)=v" }.joined(separator: "&")
            let started = Date()
            let refused = try server.client().request("POST", "/v1/batch?" + params, headers: ["Authorization": HTTPTestClient.basic(app.writeKey.text)],
                                                      body: Array(Self.batch([Self.event()]).utf8), timeout: 10)
            expectError(refused, 414, "uri_too_long")
            #expect(Date().timeIntervalSince(started) < 5)
        }
        // The refused requests stored nothing, though their bodies were complete.
        #expect(try server.database.query("SELECT count(*) FROM events").scalar == "0")
        #expect(try post(server, app.writeKey.text, Self.batch([Self.event()])).status == 200)
    }

    // MARK: framing: Content-Length twice, with Transfer-Encoding, an unknown Transfer-Encoding

    /// Sends `head` and `rest` raw and reads until the server closes: the status, the JSON error
    /// code (nil for a body that is not our JSON), and whether the close came well before `timeout`.
    func exchange(_ port: Int, _ head: String, _ rest: String, timeout: Double = 10) throws -> (status: Int, code: String?, closed: Bool) {
        let socket = try SourceBoundSocket(from: "127.0.0.1", toPort: port, timeout: timeout)
        defer { socket.close() }
        socket.send(Array((head + rest).utf8))
        let started = Date()
        let bytes = socket.readAll()
        let closed = Date().timeIntervalSince(started) < timeout / 2
        let text = String(decoding: bytes, as: UTF8.self)
        let status = text.hasPrefix("HTTP/1.1 ") ? Int(text.dropFirst(9).prefix(3)) ?? 0 : 0
        let body = text.range(of: "\r\n\r\n").map { String(text[$0.upperBound...]) } ?? ""
        let code = (try? JSONParser().parse(Array(body.utf8)))?["error"]?["code"]?.stringValue
        return (status, code, closed)
    }

    @Test func ambiguousFramingIs400AndTheConnectionIsClosed() throws {
        let server = try TestCollector.start()
        let app = try server.database.createApp()
        let start = "POST /v1/batch HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: \(HTTPTestClient.basic(app.writeKey.text))\r\n"
        let body = Self.batch([Self.event()])
        let n = body.utf8.count
        let chunked = Self.chunked(body)
        let cases: [(fields: String, rest: String)] = [
            // The issue's case: libmicrohttpd framed the body by the first value, and the batch was stored.
            ("Content-Length: \(n)\r\nContent-Length: 2\r\n", body),
            ("Content-Length: 2\r\nContent-Length: \(n)\r\n", body),
            ("Content-Length: \(n)\r\nContent-Length: \(n)\r\n", body),
            ("content-length: \(n)\r\nCONTENT-LENGTH: 0\r\n", body),
            // libmicrohttpd let Transfer-Encoding win, in either order, and stored the batch.
            ("Content-Length: 3\r\nTransfer-Encoding: chunked\r\n", chunked),
            ("Transfer-Encoding: chunked\r\nContent-Length: \(n)\r\n", chunked),
            ("Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n", chunked),
            // A coding other than chunked held the connection, unanswered, until the idle timeout.
            ("Transfer-Encoding: gzip\r\n", body),
            ("Transfer-Encoding: gzip, chunked\r\n", chunked),
        ]
        for (fields, rest) in cases {
            let answer = try exchange(server.port, start + fields + "\r\n", rest)
            #expect(answer.status == 400 && answer.code == "bad_request", "\(fields.debugDescription): \(answer)")
            #expect(answer.closed, "\(fields.debugDescription): the connection stayed open")
        }
        // Any route, before authentication: the framing is wrong whoever sends it.
        let health = try exchange(server.port, "GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nContent-Length: 4\r\n\r\n", "ping")
        #expect(health.status == 400 && health.code == "bad_request" && health.closed, "\(health)")
        // The same value twice in one field is refused by libmicrohttpd itself (its own HTML 400).
        let list = try exchange(server.port, start + "Content-Length: \(n), \(n)\r\n\r\n", body)
        #expect(list.status == 400 && list.closed, "\(list)")
        #expect(try server.database.query("SELECT count(*) FROM events").scalar == "0")
        // One Content-Length, or chunked alone, is stored as before.
        let single = try exchange(server.port, start + "Content-Length: \(n)\r\nConnection: close\r\n\r\n", body)
        #expect(single.status == 200, "\(single)")
        let chunkedAlone = try exchange(server.port, start + "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n",
                                        Self.chunked(Self.batch([Self.event()])))
        #expect(chunkedAlone.status == 200, "\(chunkedAlone)")
        #expect(try server.database.query("SELECT count(*) FROM events").scalar == "2")
    }

    static func chunked(_ body: String) -> String { String(body.utf8.count, radix: 16) + "\r\n" + body + "\r\n0\r\n\r\n" }

    // MARK: Content-Encoding

    @Test func hostileContentEncodingHeaders() throws {
        let server = try TestCollector.start()
        let app = try server.database.createApp()
        let body = try Zlib.compress(Array(Self.batch([Self.event()]).utf8))
        for value in ["br", "gzip, gzip", "zstd", String(repeating: "x", count: 5000)] {
            let response = try server.client().request("POST", "/v1/batch", headers: [
                "Authorization": HTTPTestClient.basic(app.writeKey.text), "Content-Encoding": value,
            ], body: body)
            expectError(response, 415, "unsupported_encoding")
            #expect(response.text.utf8.count < 400)
        }
        let upper = try server.client().request("POST", "/v1/batch", headers: [
            "Authorization": HTTPTestClient.basic(app.writeKey.text), "Content-Encoding": "GZIP",
        ], body: body)
        #expect(upper.status == 200)
    }
}
