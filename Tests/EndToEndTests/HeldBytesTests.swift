import Foundation
import Testing
import TapwireCore
import TapwireStore
import TapwireTestSupport

/// The flaky 408 of issue 15, reproduced on purpose: a client sends its whole body, and the
/// collector's HTTP thread is frozen for 3 s right after libmicrohttpd took the last bytes out of
/// the kernel (Tests/Faults/hold_after_recv.c, preloaded into `tapwire serve`). The stall limit is
/// 1 s. The client owed nothing during the freeze, so it must get 200, not 408; a client that
/// really stops short still gets 408.
@Suite(.serialized) struct HeldBytesTests {
    static let marker = "held-by-the-collector-7f3a"

    /// Compiles the shim into a temporary folder.
    static func shim() throws -> String {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let source = root.appendingPathComponent("Tests/Faults/hold_after_recv.c").path
        let output = NSTemporaryDirectory() + "tapwire-hold-\(UInt32.random(in: 0...UInt32.max)).so"
        let compiler = Process()
        compiler.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        compiler.arguments = ["cc", "-shared", "-fPIC", "-O2", "-o", output, source, "-ldl"]
        try compiler.run()
        compiler.waitUntilExit()
        guard compiler.terminationStatus == 0 else {
            throw TestClientError(message: "cc could not build \(source) (install gcc)")
        }
        return output
    }

    func appDatabase() throws -> (url: String, writeKey: String) {
        let name = "held_" + String(UInt32.random(in: 0...UInt32.max))
        let admin = try PostgresConnection(url: try TestPostgres.serverURL())
        defer { admin.close() }
        try admin.query("CREATE DATABASE \(name)")
        let url = try TestPostgres.url(database: name)
        #expect(try TapwireBinary.run(["migrate", "--database-url", url]).status == 0)
        let created = try TapwireBinary.run(["apps", "create", "held", "--format", "json", "--database-url", url])
        let keys = try JSONParser().parse(created.output.trimmingCharacters(in: .whitespacesAndNewlines))
        return (url, try #require(keys["writeKey"]?.stringValue))
    }

    @Test func bytesTheCollectorHoldsAreNotTheClientsStall() throws {
        let library = try Self.shim()
        defer { try? FileManager.default.removeItem(atPath: library) }
        let (url, key) = try appDatabase()
        let server = try TapwireBinary.serve(databaseURL: url, extraArguments: ["--stalled-upload-timeout", "1"], environment: [
            "LD_PRELOAD": library, "TAPWIRE_FAULT_HOLD_MARKER": Self.marker, "TAPWIRE_FAULT_HOLD_MS": "3000",
        ])
        defer { _ = server.interrupt() }

        // 20 events, the marker in the last one only: the second half of the body is what gets held.
        let events = (0..<19).map { _ in TestBatch.event() } + [TestBatch.event(category: Self.marker)]
        let body = TestBatch.body(events)
        let markerAt = try #require(String(decoding: body, as: UTF8.self).range(of: Self.marker)).lowerBound.utf16Offset(in: String(decoding: body, as: UTF8.self))
        let split = markerAt - 200
        #expect(split > 0)
        let head = HTTPTestClient.head("POST", "/v1/batch", headers: ["Authorization": HTTPTestClient.basic(key), "Content-Type": "application/json"],
                                   contentLength: body.count)
        let connection = try TestConnection(port: server.port, timeout: 20)
        defer { connection.close() }
        let started = Date()
        try connection.send(head + Array(body[..<split]))
        Thread.sleep(forTimeInterval: 0.3)
        try connection.send(Array(body[split...]))
        let response = try connection.readResponse()
        #expect(response.status == 200, "\(String(decoding: response.body, as: UTF8.self))")
        #expect(response.json?["accepted"]?.numberValue?.integer == 20)
        // The hold really happened (otherwise this test proves nothing).
        #expect(Date().timeIntervalSince(started) > 2.5)

        // The same server still answers 408 to a client that stops short of its Content-Length.
        let staller = try TestConnection(port: server.port, timeout: 20)
        defer { staller.close() }
        let stallStarted = Date()
        try staller.send(head + Array(body[..<split]))
        let stalled = try staller.readResponse()
        #expect(stalled.status == 408)
        #expect(stalled.json?["error"]?["code"]?.stringValue == "request_timeout")
        #expect(Date().timeIntervalSince(stallStarted) < 5)
    }
}
