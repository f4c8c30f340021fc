import Testing
@testable import TapwireServer

/// The upload watchdog must not 408 every client after the server itself was paused.
@Suite struct WatchdogClockTests {
    let interval: UInt64 = 250_000_000

    @Test func sweepsOnScheduleExcuseNothing() {
        var clock = WatchdogClock(interval: interval, tolerance: 8 * interval)
        #expect(clock.excuse(now: 1_000_000_000) == 0) // the first sweep has nothing to compare with
        var now: UInt64 = 1_000_000_000
        for _ in 0..<100 {
            now += interval + 30_000_000 // late by a little, as a busy machine is
            #expect(clock.excuse(now: now) == 0)
        }
    }

    @Test func aPauseIsExcusedLessOneInterval() {
        var clock = WatchdogClock(interval: interval, tolerance: 8 * interval)
        _ = clock.excuse(now: 5_000_000_000)
        #expect(clock.excuse(now: 35_000_000_000) == 30_000_000_000 - interval)
        #expect(clock.excuse(now: 35_000_000_000 + interval) == 0) // back on schedule
    }

    @Test func aClockThatDoesNotAdvanceExcusesNothing() {
        var clock = WatchdogClock(interval: interval, tolerance: 8 * interval)
        _ = clock.excuse(now: 9_000_000_000)
        #expect(clock.excuse(now: 9_000_000_000) == 0)
        #expect(clock.excuse(now: 8_000_000_000) == 0)
    }
}
