import Foundation
import Glibc
import Synchronization
import Testing
import TapwireCore
import TapwireServer
import TapwireStore
import TapwireTestSupport

/// A webhook receiver on a loopback port: records every POST. `mode` decides the answer:
/// 200, 503, or hang (hold the connection without answering).
final class WebhookReceiver: Sendable {
    enum Mode: Sendable { case ok, unavailable, hang }

    struct Message: Sendable {
        var alertId: String
        var body: JSONValue?
    }

    let port: Int
    private let listener: Int32
    private let state = Mutex<(messages: [Message], mode: Mode, attempts: Int, held: [Int32])>(([], .ok, 0, []))
    private let running = Atomic<Bool>(true)
    private let done = DispatchSemaphore(value: 0)

    /// Listens on `port` (0: any free one).
    init(port: Int = 0, mode: Mode = .ok) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 16) == 0 else {
            close(fd)
            throw ReceiverError(message: "receiver cannot listen on \(port): errno \(errno)")
        }
        var actual = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &actual) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        self.port = Int(UInt16(bigEndian: actual.sin_port))
        listener = fd
        state.withLock { $0.mode = mode }
        let thread = Thread { [self] in
            self.acceptLoop()
            self.done.signal()
        }
        thread.start()
    }

    var url: String { "http://127.0.0.1:\(port)/hook" }
    var messages: [Message] { state.withLock { $0.messages } }
    /// Requests seen, answered or not.
    var attempts: Int { state.withLock { $0.attempts } }
    func set(_ mode: Mode) { state.withLock { $0.mode = mode } }

    /// Stops listening: the port then refuses connections (the receiver is "down").
    func stop() {
        guard running.exchange(false, ordering: .acquiringAndReleasing) else { return }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        done.wait()
        for fd in state.withLock({ $0.held }) { close(fd) }
    }

    private func acceptLoop() {
        while running.load(ordering: .acquiring) {
            var pfd = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            guard poll(&pfd, 1, 50) > 0 else { continue }
            let client = accept(listener, nil, nil)
            guard client >= 0 else { continue }
            serve(client)
        }
    }

    private func serve(_ fd: Int32) {
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var data: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        var headerEnd: Int?
        var contentLength = 0
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { break }
            data += buffer[0..<n]
            if headerEnd == nil, let range = find(data, Array("\r\n\r\n".utf8)) {
                headerEnd = range + 4
                let head = String(decoding: data[0..<range], as: UTF8.self).lowercased()
                for line in head.split(separator: "\r\n") where line.hasPrefix("content-length:") {
                    contentLength = Int(line.dropFirst(15).trimmingCharacters(in: .whitespaces)) ?? 0
                }
            }
            if let end = headerEnd, data.count >= end + contentLength { break }
        }
        guard let end = headerEnd else { close(fd); return }
        let head = String(decoding: data[0..<end], as: UTF8.self)
        let alertId = head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("x-tapwire-alert-id:") }
            .map { String($0.dropFirst(19)).trimmingCharacters(in: .whitespaces) } ?? ""
        let body = Array(data[end...].prefix(contentLength))
        let mode = state.withLock { s -> Mode in
            s.attempts += 1
            if s.mode == .ok { s.messages.append(Message(alertId: alertId, body: try? JSONParser().parse(body))) }
            if s.mode == .hang { s.held.append(fd) }
            return s.mode
        }
        switch mode {
        case .ok: reply(fd, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")
        case .unavailable: reply(fd, "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        case .hang: return
        }
        close(fd)
    }

    private func reply(_ fd: Int32, _ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    private func find(_ haystack: [UInt8], _ needle: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for i in 0...(haystack.count - needle.count) where haystack[i..<i + needle.count].elementsEqual(needle) { return i }
        return nil
    }
}

struct ReceiverError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

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
    @Test func oneMessagePerFindingAcrossRestartsAndCollectors() throws {
        let receiver = try WebhookReceiver()
        defer { receiver.stop() }
        let first = try TestCollector.start(configure: fastAlerts(receiver.url))
        let app = try first.database.createApp("hooked")
        try postScenario(first.client(), writeKey: app.writeKey.text)

        #expect(eventually(timeout: 20) { receiver.messages.count >= expectedAlerts.count })
        // A few more scans find nothing new.
        Thread.sleep(forTimeInterval: 1)
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
        Thread.sleep(forTimeInterval: 1.5)
        #expect(receiver.messages.count == expectedAlerts.count)

        // A new finding, seen by two collectors at once, is announced exactly once.
        let fresh = TestBatch.body(events("flash_sale", count: 2), context: context("3.2.1"))
        #expect(try second.client().post("/v1/batch", key: app.writeKey.text, json: fresh).status == 200)
        #expect(eventually(timeout: 10) { receiver.messages.count == expectedAlerts.count + 1 })
        Thread.sleep(forTimeInterval: 1)
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
        #expect(eventually(timeout: 20) { back.messages.count == expectedAlerts.count })
        Thread.sleep(forTimeInterval: 1)
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
