import Testing
@testable import TapwireWire

@Suite struct EventIDTests {
    @Test func parsesBothCasesAndFormatsLowercase() throws {
        let id = try #require(EventID("0193A2E4-7B1C-7D3E-9F00-123456789ABC"))
        #expect(id.description == "0193a2e4-7b1c-7d3e-9f00-123456789abc")
        #expect(id.version == 7)
    }

    @Test(arguments: ["", "0193a2e4-7b1c-7d3e-9f00-123456789ab", "0193a2e47b1c7d3e9f00123456789abc", "0193a2e4-7b1c-7d3e-9f00-123456789abg"])
    func rejectsMalformed(_ text: String) {
        #expect(EventID(text) == nil)
    }

    @Test func v7IsTimeOrderedAndVersioned() {
        var generator = SystemRandomNumberGenerator()
        let early = EventID.v7(at: Timestamp(microseconds: 1_000_000_000), using: &generator)
        let late = EventID.v7(at: Timestamp(microseconds: 2_000_000_000), using: &generator)
        #expect(early < late)
        #expect(early.version == 7)
        #expect((early.low >> 62) == 0b10) // RFC 9562 variant
        #expect(EventID(early.description) == early)
    }

    @Test func readsItsTextFromUTF8BytesAndItsSixteenBytes() {
        let id = EventID(high: 0x0193_a2e4_7b1c_7d3e, low: 0x9f00_1234_5678_9abc)
        var text = id.description
        #expect(text.withUTF8 { EventID(utf8: $0) } == id)
        #expect(id.bytes.count == 16 && id.bytes.first == 0x01 && id.bytes.last == 0xbc)
        #expect(EventID(bytes: id.bytes) == id)
        #expect(EventID(bytes: id.bytes.dropLast()) == nil)
    }
}

/// The SDK's ids: strictly increasing UUIDv7s.
@Suite struct UUIDv7Tests {
    @Test func carriesVersionVariantAndMilliseconds() {
        var generator = UUIDv7Generator()
        var random = SystemRandomNumberGenerator()
        let id = generator.next(unixMilliseconds: 1_764_583_205_120, using: &random)
        #expect(id.version == 7)
        #expect(id.variant == 2)
        #expect(id.unixMilliseconds == 1_764_583_205_120)
        #expect(id.description.hasPrefix("019ad95a-e900-7"))  // 1764583205120 ms = 0x019ad95ae900
        #expect(EventID(id.description) == id)
        #expect(EventID(id.description.uppercased()) == id)
        #expect(EventID(bytes: id.bytes) == id)
    }

    @Test func strictlyIncreasesWithinOneMillisecondAndWhenTheClockStepsBack() {
        var generator = UUIDv7Generator()
        var random = SystemRandomNumberGenerator()
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
        #expect(EventID("not-a-uuid") == nil)
        #expect(EventID("0193a2e07b1c7d3e9f00123456789abcd") == nil)
        #expect(EventID("0193a2e0-7b1c-7d3e-9f00-123456789abg") == nil)
        #expect(EventID("0193a2e0-7b1c-7d3e-9f00-123456789abc")?.description == "0193a2e0-7b1c-7d3e-9f00-123456789abc")
    }
}
