import Testing
@testable import TapwireCore

@Suite struct TimestampTests {
    @Test func parsesAndFormatsUTC() throws {
        let t = try #require(Timestamp(iso8601: "2026-12-01T10:00:05.120Z"))
        #expect(t.description == "2026-12-01T10:00:05.120Z")
        // 2026-12-01 is day 20788 after the Unix epoch.
        #expect(t.utcDay == 20788)
    }

    @Test func appliesOffsets() throws {
        let a = try #require(Timestamp(iso8601: "2026-12-01T12:00:00+02:00"))
        let b = try #require(Timestamp(iso8601: "2026-12-01T10:00:00Z"))
        let c = try #require(Timestamp(iso8601: "2026-12-01T05:30:00-0430"))
        #expect(a == b)
        #expect(c == b)
    }

    @Test func keepsMicrosecondsAndTruncatesNanoseconds() throws {
        let t = try #require(Timestamp(iso8601: "1970-01-01T00:00:00.123456789Z"))
        #expect(t.microseconds == 123_456)
    }

    @Test func dateOnlyIsMidnightUTC() throws {
        let t = try #require(Timestamp(iso8601: "2026-12-01"))
        #expect(t.description == "2026-12-01T00:00:00.000Z")
    }

    @Test(arguments: ["2026-13-01T00:00:00Z", "2026-02-30T00:00:00Z", "2026-12-01T24:00:00Z", "2026-12-01T10:00",
                      "yesterday", "", "2026-12-01T10:00:00+25:00", "2026-12-01T10:00:00.Z"])
    func rejectsInvalid(_ text: String) {
        #expect(Timestamp(iso8601: text) == nil)
    }

    @Test func handlesYear9999And1970AndLeapDays() throws {
        #expect(Timestamp(iso8601: "9999-12-31T23:59:59Z")?.description == "9999-12-31T23:59:59.000Z")
        #expect(Timestamp(iso8601: "1970-01-01T00:00:00Z")?.microseconds == 0)
        #expect(Timestamp(iso8601: "2024-02-29T00:00:00Z") != nil)
        #expect(Timestamp(iso8601: "2100-02-29T00:00:00Z") == nil)
        #expect(Timestamp(microseconds: -1).description == "1969-12-31T23:59:59.999Z")
    }

    @Test func civilCalendarRoundTrips() {
        for day in stride(from: -800_000 as Int64, through: 3_000_000, by: 997) {
            let (y, m, d) = CivilCalendar.civil(fromDays: day)
            #expect(CivilCalendar.days(fromYear: y, month: m, day: d) == day)
        }
    }
}

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
        var generator = SeededGenerator(seed: 1)
        let early = EventID.v7(at: Timestamp(microseconds: 1_000_000_000), using: &generator)
        let late = EventID.v7(at: Timestamp(microseconds: 2_000_000_000), using: &generator)
        #expect(early < late)
        #expect(early.version == 7)
        #expect((early.low >> 62) == 0b10) // RFC 9562 variant
        #expect(EventID(early.description) == early)
    }
}

@Suite struct DurationTextTests {
    @Test func unitsAndZero() {
        #expect(DurationText.seconds("30s") == 30)
        #expect(DurationText.seconds("15m") == 900)
        #expect(DurationText.seconds("24h") == 86_400)
        #expect(DurationText.seconds("7d") == 604_800)
        #expect(DurationText.seconds("2w") == 1_209_600)
        #expect(DurationText.seconds("0") == 0)
        #expect(DurationText.seconds("0d") == 0)
    }

    @Test func partsGiveTheCountAndUnit() {
        #expect(DurationText.parts("7d").map { [$0.count, $0.unit.seconds] } == [7, 86_400])
        #expect(DurationText.parts("12h")?.unit == .hours)
        #expect(DurationText.parts("0") == nil && DurationText.parts("7D") == nil && DurationText.parts("-1d") == nil)
    }

    @Test func notADuration() {
        for text in ["", "d", "7", "300", "-1d", "1.5h", "7y", "7 d", "yesterday", "2026-12-01"] {
            #expect(DurationText.seconds(text) == nil, "\(text)")
        }
    }

    /// A huge count once overflowed Int64 in the HTTP `since` parameter and trapped the collector.
    @Test func tooLargeIsRefusedNotOverflowed() {
        #expect(DurationText.seconds("9223372036854775807w") == nil)
        #expect(DurationText.seconds("9999999999999d") == nil)
        #expect(DurationText.seconds("\(DurationText.maximumSeconds)s") == DurationText.maximumSeconds)
        #expect(DurationText.seconds("\(DurationText.maximumSeconds + 1)s") == nil)
    }
}
