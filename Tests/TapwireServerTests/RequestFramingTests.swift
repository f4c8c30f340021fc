import Testing
@testable import TapwireServer

/// RFC 9112 §6.3 as `RequestFraming` applies it; HostileInputTests sends the same shapes to a
/// real collector.
@Suite struct RequestFramingTests {
    @Test func oneFramingFieldIsFine() {
        #expect(RequestFraming().problem == nil)
        #expect(RequestFraming(contentLength: ["57"]).problem == nil)
        #expect(RequestFraming(transferEncoding: ["chunked"]).problem == nil)
        #expect(RequestFraming(transferEncoding: [" Chunked "]).problem == nil)
    }

    @Test func repeatedContentLengthIsRefusedWhetherOrNotTheValuesAgree() throws {
        let different = try #require(RequestFraming(contentLength: ["57", "2"]).problem)
        #expect(different.contains("Content-Length is sent 2 times (57 | 2)"))
        #expect(RequestFraming(contentLength: ["57", "57"]).problem != nil)
        #expect(RequestFraming(contentLength: ["1", "1", "1"]).problem?.contains("3 times") == true)
    }

    @Test func transferEncodingMustBeChunkedAloneAndOnce() {
        #expect(RequestFraming(contentLength: ["3"], transferEncoding: ["chunked"]).problem?.contains("both") == true)
        #expect(RequestFraming(transferEncoding: ["chunked", "chunked"]).problem?.contains("2 times") == true)
        #expect(RequestFraming(transferEncoding: ["gzip"]).problem?.contains("not supported") == true)
        #expect(RequestFraming(transferEncoding: ["gzip, chunked"]).problem?.contains("not supported") == true)
    }

    @Test func echoedValuesAreCutShortAndKeysRedacted() throws {
        let long = String(repeating: "9", count: 5000)
        let message = try #require(RequestFraming(contentLength: [long, "1"]).problem)
        #expect(message.utf8.count < 200)
        let secret = "tww_0123456789abcdef_" + String(repeating: "s", count: 32)
        let keyed = try #require(RequestFraming(transferEncoding: [secret]).problem)
        #expect(!keyed.contains(String(repeating: "s", count: 32)))
    }
}
