import Foundation
import Testing
@testable import TapwireClient

/// A fresh directory under the system temp dir, removed by the caller.
func temporaryDirectory(_ name: String = #function) -> URL {
    let url = FileManager.default.temporaryDirectory
        .appendingPathComponent("tapwire-client-tests")
        .appendingPathComponent(name.filter { $0.isLetter || $0.isNumber } + "-" + UUID().uuidString)
    try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// SplitMix64, so jitter and ids are reproducible in tests.
struct TestRandom: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64 = 42) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

@Suite struct UUIDv7Tests {
    @Test func carriesVersionVariantAndMilliseconds() {
        var generator = UUIDv7Generator()
        var random = TestRandom()
        let id = generator.next(unixMilliseconds: 1_764_583_205_120, using: &random)
        #expect(id.version == 7)
        #expect(id.variant == 2)
        #expect(id.unixMilliseconds == 1_764_583_205_120)
        #expect(id.description.hasPrefix("019ad95a-e900-7"))  // 1764583205120 ms = 0x019ad95ae900
        #expect(TelemetryEventID(id.description) == id)
        #expect(TelemetryEventID(id.description.uppercased()) == id)
        #expect(TelemetryEventID(bytes: id.bytes) == id)
    }

    @Test func strictlyIncreasesWithinOneMillisecondAndWhenTheClockStepsBack() {
        var generator = UUIDv7Generator()
        var random = TestRandom()
        var previous = generator.next(unixMilliseconds: 5_000, using: &random)
        for i in 0..<20_000 {
            // 10,000 ids in one millisecond (past the 12-bit counter), then a clock 1 s behind.
            let now: UInt64 = i < 10_000 ? 5_000 : 4_000
            let id = generator.next(unixMilliseconds: now, using: &random)
            #expect(id > previous, "id \(i) did not increase")
            #expect(id.version == 7 && id.variant == 2)
            previous = id
        }
    }

    @Test func rejectsMalformedText() {
        #expect(TelemetryEventID("not-a-uuid") == nil)
        #expect(TelemetryEventID("0193a2e07b1c7d3e9f00123456789abcd") == nil)
        #expect(TelemetryEventID("0193a2e0-7b1c-7d3e-9f00-123456789abg") == nil)
        #expect(TelemetryEventID("0193a2e0-7b1c-7d3e-9f00-123456789abc")?.description == "0193a2e0-7b1c-7d3e-9f00-123456789abc")
    }
}

@Suite struct ISO8601Tests {
    @Test(arguments: [
        (Int64(0), "1970-01-01T00:00:00.000Z"),
        (Int64(1_796_119_205_120_000), "2026-12-01T10:00:05.120Z"),
        (Int64(951_782_400_000_000), "2000-02-29T00:00:00.000Z"),
        (Int64(-1_000), "1969-12-31T23:59:59.999Z"),
        (Int64(1_999), "1970-01-01T00:00:00.001Z"),
        (Int64(4_102_444_799_999_000), "2099-12-31T23:59:59.999Z"),
    ])
    func formats(micros: Int64, text: String) {
        #expect(ISO8601Time.string(microseconds: micros) == text)
    }

    @Test func agreesWithFoundationForADate() {
        let date = Date(timeIntervalSince1970: 1_700_000_000.25)
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        #expect(ISO8601Time.string(date) == formatter.string(from: date))
    }
}

@Suite struct EncodingTests {
    @Test func sha256KnownVectors() {
        #expect(SHA256Digest.hex([]) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(SHA256Digest.hex(Array("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        let long = Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)
        #expect(SHA256Digest.hex(long) == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    }

    @Test func jsonEscapesAndKeepsOrder() {
        let value = JSONOutput.object([("b", .string("q\"\\\n\t\u{1}é")), ("a", .array([.int(-3), .bool(true), .null]))])
        #expect(value.text == #"{"b":"q\"\\\n\t\u0001é","a":[-3,true,null]}"#)
        let parsed = try? JSONSerialization.jsonObject(with: Data(value.bytes)) as? [String: Any]
        #expect(parsed?["b"] as? String == "q\"\\\n\t\u{1}é")
    }

    @Test func gzipRoundTripsAndHasAGzipHeader() throws {
        var random = TestRandom()
        let text = (0..<5000).map { _ in UInt8(97 + random.next() % 8) }
        let compressed = try Zlib.gzip(text)
        #expect(compressed[0] == 0x1f && compressed[1] == 0x8b)
        #expect(compressed.count < text.count)
        #expect(try Zlib.gunzip(compressed) == text)
        // The trailer holds CRC-32 and ISIZE of the input, little-endian.
        let n = compressed.count
        let crc = UInt32(compressed[n - 8]) | UInt32(compressed[n - 7]) << 8 | UInt32(compressed[n - 6]) << 16 | UInt32(compressed[n - 5]) << 24
        #expect(crc == Zlib.crc32(text))
        #expect(try Zlib.gunzip(Zlib.gzip([])) == [])
    }

    @Test func gunzipRefusesTruncatedCorruptAndOversizedInput() throws {
        let compressed = try Zlib.gzip(Array(repeating: 65, count: 100_000))
        #expect(throws: Zlib.Failure.self) { try Zlib.gunzip(Array(compressed.dropLast(10))) }
        var corrupt = compressed
        corrupt[12] ^= 0xFF
        #expect(throws: Zlib.Failure.self) { try Zlib.gunzip(corrupt) }
        do {
            _ = try Zlib.gunzip(compressed, maxOutput: 1000)
            Issue.record("expected tooLarge")
        } catch {
            #expect(error.code == .tooLarge)
        }
    }

    @Test func crc32CheckValue() {
        #expect(Zlib.crc32(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(Zlib.crc32(Array("6789".utf8), initial: Zlib.crc32(Array("12345".utf8))) == 0xCBF4_3926)
    }
}
