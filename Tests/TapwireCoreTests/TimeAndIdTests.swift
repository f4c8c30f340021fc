import Testing
@testable import TapwireCore

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
