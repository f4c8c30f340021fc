import Testing
@testable import TapwireWire

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

/// The SDK writes its times with this formatter too (it used to have its own copy).
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
        #expect(Timestamp(microseconds: micros).description == text)
    }
}
