import Testing
@testable import TapwireCore

/// The rows each rollup table gets from one fold (`RollupRows`' table-shaped views), computed by
/// hand here; the store's tests hold what SQL expands from them equal to the oracle.
@Suite("Rollup rows as the tables keep them")
struct RollupRowsTests {
    static let hour: Int64 = 3_600_000_000
    static let quarter: Int64 = hour / 4
    static let day: Int64 = 24 * hour
    /// 2026-03-01T00:00:00Z.
    static let march1 = CivilCalendar.days(fromYear: 2026, month: 3, day: 1) * day

    @Test func quarterHoursBecomeRunningSumsAtTheDaysNinetySevenEdges() {
        var rows = RollupRows()
        let d = Self.march1
        rows.trend[.init(appId: 1, quarter: d, category: "chat")] = .init(first: 3, second: 1)
        rows.trend[.init(appId: 1, quarter: d + 10 * Self.quarter, category: "chat")] = .init(first: 2, second: 2)
        rows.trend[.init(appId: 1, quarter: d + 95 * Self.quarter, category: "chat")] = .init(first: 5, second: 0)
        // The next day is a row of its own.
        rows.trend[.init(appId: 1, quarter: d + Self.day + Self.quarter, category: "chat")] = .init(first: 7, second: 4)

        let days = rows.trendDays
        #expect(days.count == 2)
        let first = days[.init(appId: 1, day: d, category: "chat")]
        #expect(first?.first.count == 97)
        #expect(first?.first[0] == 0)
        #expect(first?.first[1] == 3)
        #expect(first?.first[10] == 3)
        #expect(first?.first[11] == 5)
        #expect(first?.first[95] == 5)
        #expect(first?.first[96] == 10)
        #expect(first?.second[96] == 3)
        let second = days[.init(appId: 1, day: d + Self.day, category: "chat")]
        #expect(second?.first[1] == 0)
        #expect(second?.first[2] == 7)
        #expect(second?.second[96] == 4)
    }

    @Test func aQuarterBeforeNineteenSeventyFallsInItsOwnDay() {
        var rows = RollupRows()
        // The last quarter of 1969-12-31.
        rows.dismissQuarters[.init(appId: 2, quarter: -Self.quarter, category: "c", appVersion: "1.0")] = .init(first: 4, second: 1)
        let days = rows.dismissQuarterDays
        let row = days[.init(appId: 2, day: -Self.day, category: "c", appVersion: "1.0")]
        #expect(row?.first[95] == 0)
        #expect(row?.first[96] == 4)
        #expect(row?.second[96] == 1)
    }

    @Test func bothSidesOfAStratumShareARow() {
        var rows = RollupRows()
        rows.strata[.init(appId: 1, day: Self.march1, category: "chat", campaign: "spring", platform: "iOS", hasMedia: true)] = .init(first: 10, second: 4)
        rows.strata[.init(appId: 1, day: Self.march1, category: "chat", campaign: "spring", platform: "iOS", hasMedia: false)] = .init(first: 8, second: 1)
        rows.strata[.init(appId: 1, day: Self.march1, category: "chat", campaign: "", platform: "iOS", hasMedia: false)] = .init(first: 2, second: 0)
        let days = rows.strataDays
        #expect(days.count == 2)
        let spring = days[.init(appId: 1, day: Self.march1, category: "chat", campaign: "spring", platform: "iOS")]
        #expect(spring == .init(rich: .init(first: 10, second: 4), text: .init(first: 8, second: 1)))
        let none = days[.init(appId: 1, day: Self.march1, category: "chat", campaign: "", platform: "iOS")]
        #expect(none == .init(rich: .zero, text: .init(first: 2, second: 0)))
    }

    @Test func aHistogramKeepsItsNonZeroBinsAscending() {
        var rows = RollupRows()
        for (bin, n) in [(Int16(9), Int64(2)), (3, 5), (7, 0), (12, 1)] {
            rows.totalHistograms[.init(appId: 1, grain: 2, bucket: Self.march1, category: "chat", metric: .timeToResponse, bin: bin)] = n
        }
        rows.totalHistograms[.init(appId: 1, grain: 2, bucket: Self.march1, category: "chat", metric: .replyLength, bin: 4)] = 6
        let histograms = rows.histogramBins
        #expect(histograms.count == 2)
        let times = histograms[.init(appId: 1, grain: 2, bucket: Self.march1, category: "chat", metric: .timeToResponse)]
        #expect(times == .init(bins: [3, 9, 12], counts: [5, 2, 1]))
        let replies = histograms[.init(appId: 1, grain: 2, bucket: Self.march1, category: "chat", metric: .replyLength)]
        #expect(replies == .init(bins: [4], counts: [6]))
    }

    @Test func aReleaseDaysHoursShareARow() {
        var rows = RollupRows()
        let release = RollupRows.ReleaseKey(appId: 1, hour: Self.march1 + 5 * Self.hour, category: "chat", appVersion: "3.1", platform: "iOS")
        var late = release
        late.hour = Self.march1 + 23 * Self.hour
        var counts = RollupRows.ReleaseCounts()
        counts.delivered = 9
        counts.opens = 2
        counts.dismissals = 1
        counts.replies = 3
        rows.releaseCounts[release] = counts
        var other = RollupRows.ReleaseCounts()
        other.delivered = 4
        rows.releaseCounts[late] = other
        rows.releaseActions[.init(release: release, action: "buy")] = 2
        rows.releaseActions[.init(release: late, action: "buy")] = 1

        let key = RollupRows.ReleaseDayKey(appId: 1, day: Self.march1, category: "chat", appVersion: "3.1", platform: "iOS")
        let hours = rows.releaseDays[key]
        #expect(rows.releaseDays.count == 1)
        #expect(hours?.delivered.count == 24)
        #expect(hours?.delivered[5] == 9)
        #expect(hours?.delivered[23] == 4)
        #expect(hours?.opens[5] == 2)
        #expect(hours?.dismissals[5] == 1)
        #expect(hours?.replies[5] == 3)
        #expect(hours.map { $0.delivered.reduce(0, +) } == 13)
        let actions = rows.releaseActionDays[.init(release: key, action: "buy")]
        #expect(actions?[5] == 2)
        #expect(actions?[23] == 1)
        #expect(actions.map { $0.reduce(0, +) } == 3)
    }

    @Test func runningSumsOfCountsStartAtZero() {
        #expect(RollupRows.running([]) == [0])
        #expect(RollupRows.running([1, 0, 2]) == [0, 1, 1, 3])
    }
}
