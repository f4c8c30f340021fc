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

/// The SDK's times are the wire format's `Timestamp`; a `Date` becomes one to the microsecond.
@Suite struct ISO8601Tests {
    @Test func agreesWithFoundationForADate() {
        let date = Date(timeIntervalSince1970: 1_700_000_000.25)
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        #expect(Timestamp(date).description == formatter.string(from: date))
    }
}
