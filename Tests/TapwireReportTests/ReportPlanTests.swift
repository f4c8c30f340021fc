import Testing
import TapwireCore
import TapwireStatistics
@testable import TapwireReport
import TapwireStore
import TapwireTestSupport

/// What a report reads for which part of its range (`ReportPlan`): whole UTC days from daily
/// rows, the days its edges cut from quarter hours, the minutes off a quarter hour from events,
/// and each local day of the engagement line as runs of quarter hours, in any zone.
@Suite struct ReportPlanTests {
    static func us(_ iso: String) -> Int64 { Timestamp(iso8601: iso)!.microseconds }
    typealias Run = ReportPlan.Run
    typealias LabeledRun = ReportPlan.LabeledRun
    static func run(_ lo: String, _ hi: String) -> Run { Run(lo: us(lo), hi: us(hi)) }
    static func run(_ lo: String, _ hi: String, _ day: String) -> LabeledRun { LabeledRun(lo: us(lo), hi: us(hi), day: day) }

    /// Nepal (+05:45): each local midnight is 18:15 UTC. Two local days from midnight to
    /// midnight: one whole UTC day, two cut ones read from quarter hours, no event; the
    /// engagement line's days are runs of quarter hours of two UTC days each.
    @Test func nepalsMidnightsCutTheUTCDaysAtAQuarter() {
        let days = [("2026-11-03", Self.us("2026-11-02T18:15:00Z")), ("2026-11-04", Self.us("2026-11-03T18:15:00Z"))]
        let plan = ReportPlan(from: Self.us("2026-11-02T18:15:00Z"), to: Self.us("2026-11-04T18:15:00Z"),
                              localDays: days.map { (day: $0.0, start: $0.1) }, coverage: nil)
        #expect(plan.wholeDays == [Self.us("2026-11-03T00:00:00Z")])
        #expect(plan.quarters.count == 23 + 73)
        #expect(plan.quarters.first == Self.us("2026-11-02T18:15:00Z") && plan.quarters.last == Self.us("2026-11-04T18:00:00Z"))
        #expect(plan.eventRanges.isEmpty && plan.trendEventRanges.isEmpty)
        #expect(plan.quarterRuns == [Self.run("2026-11-02T18:15:00Z", "2026-11-03T00:00:00Z"), Self.run("2026-11-04T00:00:00Z", "2026-11-04T18:15:00Z")])
        #expect(plan.blocks == [ReportPlan.Block(grain: 2, start: Self.us("2026-11-03T00:00:00Z"))])
        #expect(plan.trendRuns == [
            Self.run("2026-11-02T18:15:00Z", "2026-11-03T00:00:00Z", "2026-11-03"), Self.run("2026-11-03T00:00:00Z", "2026-11-03T18:15:00Z", "2026-11-03"),
            Self.run("2026-11-03T18:15:00Z", "2026-11-04T00:00:00Z", "2026-11-04"), Self.run("2026-11-04T00:00:00Z", "2026-11-04T18:15:00Z", "2026-11-04"),
        ])
    }

    /// Edges off the quarter hour: their minutes come from events (for the totals and the line
    /// alike, so one read serves both), the rest of the cut day from quarter hours.
    @Test func edgesOffTheQuarterHourReadEvents() {
        let plan = ReportPlan(from: Self.us("2026-11-05T10:17:00Z"), to: Self.us("2026-11-06T12:05:00Z"),
                              localDays: [(day: "2026-11-05", start: Self.us("2026-11-05T00:00:00Z")),
                                          (day: "2026-11-06", start: Self.us("2026-11-06T00:00:00Z"))], coverage: nil)
        #expect(plan.wholeDays.isEmpty)
        #expect(plan.eventRanges == [Self.run("2026-11-05T10:17:00Z", "2026-11-05T10:30:00Z"), Self.run("2026-11-06T12:00:00Z", "2026-11-06T12:05:00Z")])
        #expect(plan.trendReadsTheSameEvents)
        #expect(plan.quarters.first == Self.us("2026-11-05T10:30:00Z") && plan.quarters.last == Self.us("2026-11-06T11:45:00Z"))
        #expect(plan.trendRuns == [Self.run("2026-11-05T10:30:00Z", "2026-11-06T00:00:00Z", "2026-11-05"),
                                   Self.run("2026-11-06T00:00:00Z", "2026-11-06T12:00:00Z", "2026-11-06")])
    }

    /// St John's moves from -03:30 to -02:30 on 2026-03-08: the midnight that starts the 7th is
    /// 03:30 UTC, the one that starts the 9th 02:30 UTC; each local day is its runs.
    @Test func aDaylightSavingChangeMovesTheCutByAnHour() {
        let days = [("2026-03-07", Self.us("2026-03-07T03:30:00Z")), ("2026-03-08", Self.us("2026-03-08T03:30:00Z"))]
        let plan = ReportPlan(from: Self.us("2026-03-07T03:30:00Z"), to: Self.us("2026-03-09T02:30:00Z"),
                              localDays: days.map { (day: $0.0, start: $0.1) }, coverage: nil)
        #expect(plan.wholeDays == [Self.us("2026-03-08T00:00:00Z")])
        #expect(plan.trendRuns == [
            Self.run("2026-03-07T03:30:00Z", "2026-03-08T00:00:00Z", "2026-03-07"), Self.run("2026-03-08T00:00:00Z", "2026-03-08T03:30:00Z", "2026-03-07"),
            Self.run("2026-03-08T03:30:00Z", "2026-03-09T00:00:00Z", "2026-03-08"), Self.run("2026-03-09T00:00:00Z", "2026-03-09T02:30:00Z", "2026-03-08"),
        ])
    }

    /// Before the quarter hours are complete (data stored before migration 0100), a cut day's
    /// part comes from events, and the line reads whole hours there, its cut hours from events.
    @Test func beforeTheQuarterHoursAreCompleteEventsAndWholeHours() {
        let days = [("2026-11-03", Self.us("2026-11-02T18:15:00Z")), ("2026-11-04", Self.us("2026-11-03T18:15:00Z"))]
        let plan = ReportPlan(from: Self.us("2026-11-02T18:15:00Z"), to: Self.us("2026-11-04T18:15:00Z"),
                              localDays: days.map { (day: $0.0, start: $0.1) }, coverage: Self.us("2026-11-03T18:30:00Z"))
        #expect(plan.wholeDays == [Self.us("2026-11-03T00:00:00Z")])
        #expect(plan.eventRanges == [Self.run("2026-11-02T18:15:00Z", "2026-11-03T00:00:00Z")])
        #expect(plan.quarters.first == Self.us("2026-11-04T00:00:00Z"))
        #expect(plan.trendRuns == [
            Self.run("2026-11-02T19:00:00Z", "2026-11-03T00:00:00Z", "2026-11-03"), Self.run("2026-11-03T00:00:00Z", "2026-11-03T18:00:00Z", "2026-11-03"),
            Self.run("2026-11-03T18:30:00Z", "2026-11-04T00:00:00Z", "2026-11-04"), Self.run("2026-11-04T00:00:00Z", "2026-11-04T18:15:00Z", "2026-11-04"),
        ])
        #expect(plan.trendEventRanges == [
            Self.run("2026-11-02T18:15:00Z", "2026-11-02T19:00:00Z", "2026-11-03"), Self.run("2026-11-03T18:00:00Z", "2026-11-03T18:15:00Z", "2026-11-03"),
            Self.run("2026-11-03T18:15:00Z", "2026-11-03T18:30:00Z", "2026-11-04"),
        ])
        #expect(!plan.trendReadsTheSameEvents)
    }

    /// A run of whole days is covered by the fewest aligned blocks: at most two of each size.
    @Test func wholeDaysAreCoveredByTheFewestBlocks() {
        let day: Int64 = ReportPlan.day
        // 30 days from 2026-10-01, day 20727 since 1970: 20727 (1 day), 20728 (8, not 16-aligned),
        // 20736 (16), 20752 (4), 20756 (1).
        let start = Self.us("2026-10-01T00:00:00Z")
        let blocks = ReportPlan.cover((0..<30).map { start + Int64($0) * day })
        #expect(blocks.map(\.grain) == [2, 5, 6, 4, 2], "\(blocks)")
        #expect(blocks.map { RollupRows.Grain.days($0.grain) }.reduce(0, +) == 30)
        #expect(blocks.allSatisfy { RollupRows.Grain.block(of: $0.start, grain: $0.grain) == $0.start })
        // Two runs with a gap: each covered on its own.
        let gapped = ReportPlan.cover([start, start + day, start + 5 * day])
        #expect(gapped.map(\.start) == [start, start + day, start + 5 * day] || gapped.map(\.start) == [start, start + 5 * day])
        #expect(gapped.map { RollupRows.Grain.days($0.grain) }.reduce(0, +) == 3)
    }

    /// Conversions read a cut day's part of at most half the day from their rows, a longer one as
    /// the whole day from the rollups less the rest of the day: Kolkata's first day (5.5 h) as
    /// it is, its last (18.5 h) as the day less the evening; a range inside one day (22 h 26 min)
    /// as the day less both of its ends.
    @Test func conversionsReadNoMoreThanHalfACutDayFromRows() {
        typealias SignedRun = ReportPlan.SignedRun
        func run(_ lo: String, _ hi: String, _ sign: Int) -> SignedRun { SignedRun(lo: Self.us(lo), hi: Self.us(hi), sign: sign) }
        let kolkata = ReportPlan(from: Self.us("2026-11-30T18:30:00Z"), to: Self.us("2026-12-03T18:30:00Z"),
                                 localDays: [], coverage: nil)
        #expect(kolkata.wholeDays == [Self.us("2026-12-01T00:00:00Z"), Self.us("2026-12-02T00:00:00Z")])
        #expect(kolkata.conversionCutDays == [Self.us("2026-12-03T00:00:00Z")])
        #expect(kolkata.conversionRuns == [run("2026-11-30T18:30:00Z", "2026-12-01T00:00:00Z", 1),
                                           run("2026-12-03T18:30:00Z", "2026-12-04T00:00:00Z", -1)])
        let inside = ReportPlan(from: Self.us("2026-12-01T00:41:00Z"), to: Self.us("2026-12-01T23:07:00Z"), localDays: [], coverage: nil)
        #expect(inside.wholeDays.isEmpty && inside.conversionCutDays == [Self.us("2026-12-01T00:00:00Z")])
        #expect(inside.conversionRuns == [run("2026-12-01T00:00:00Z", "2026-12-01T00:41:00Z", -1),
                                          run("2026-12-01T23:07:00Z", "2026-12-02T00:00:00Z", -1)])
        // Before the retention horizon the rollups keep counts whose rows are gone: rows only.
        let retained = ReportPlan(from: Self.us("2026-11-30T18:30:00Z"), to: Self.us("2026-12-03T18:30:00Z"), localDays: [],
                                  coverage: nil, horizon: Self.us("2026-12-04T00:00:00Z"))
        #expect(retained.conversionCutDays.isEmpty)
        #expect(retained.conversionRuns == [run("2026-11-30T18:30:00Z", "2026-12-01T00:00:00Z", 1),
                                            run("2026-12-03T00:00:00Z", "2026-12-03T18:30:00Z", 1)])
        let past = ReportPlan(from: Self.us("2026-11-30T18:30:00Z"), to: Self.us("2026-12-03T18:30:00Z"), localDays: [],
                              coverage: nil, horizon: Self.us("2026-12-03T00:00:00Z"))
        #expect(past.conversionRuns == kolkata.conversionRuns)
        // Exactly half a day is read as it is.
        let half = ReportPlan(from: Self.us("2026-12-01T12:00:00Z"), to: Self.us("2026-12-02T00:00:00Z"), localDays: [], coverage: nil)
        #expect(half.conversionCutDays.isEmpty && half.conversionRuns == [run("2026-12-01T12:00:00Z", "2026-12-02T00:00:00Z", 1)])
        // A report to now at 03:10: today's rest lies after now (only conversions dated ahead),
        // so today is read whole less it, not as 3 h 10 min of rows; the first day, cut at 03:10
        // a month ago, has all of its rest before now and is read as it is (20 h 50 min).
        let now = Self.us("2026-12-03T03:10:00Z")
        let toNow = ReportPlan(from: Self.us("2026-11-03T03:10:00Z"), to: now, localDays: [], coverage: nil, now: now)
        #expect(toNow.conversionCutDays == [Self.us("2026-11-03T00:00:00Z"), Self.us("2026-12-03T00:00:00Z")])
        #expect(toNow.conversionRuns == [run("2026-11-03T00:00:00Z", "2026-11-03T03:10:00Z", -1),
                                         run("2026-12-03T03:10:00Z", "2026-12-04T00:00:00Z", -1)])
        let noNow = ReportPlan(from: Self.us("2026-11-03T03:10:00Z"), to: now, localDays: [], coverage: nil)
        #expect(noNow.conversionCutDays == [Self.us("2026-11-03T00:00:00Z")])
        #expect(noNow.conversionRuns == [run("2026-11-03T00:00:00Z", "2026-11-03T03:10:00Z", -1),
                                         run("2026-12-03T00:00:00Z", "2026-12-03T03:10:00Z", 1)])
        // Before the retention horizon, rows only, whatever now.
        let kept = ReportPlan(from: Self.us("2026-11-03T03:10:00Z"), to: now, localDays: [], coverage: nil,
                              horizon: Self.us("2026-12-04T00:00:00Z"), now: now)
        #expect(kept.conversionCutDays.isEmpty)
        // A past edge is decided as without now: the part is 3 h 10 min of a day wholly before now.
        let pastEdge = ReportPlan(from: Self.us("2026-11-03T03:10:00Z"), to: now, localDays: [], coverage: nil,
                                  now: Self.us("2026-12-05T00:00:00Z"))
        #expect(pastEdge.conversionRuns == noNow.conversionRuns)
    }

    /// Random ranges, zones' midnights and coverage: the pieces of the totals cover the range
    /// exactly once, and so do each local day's pieces of the line.
    @Test func piecesCoverTheRangeExactlyOnce() {
        var rng = SeededGenerator(seed: 77)
        let quarter: Int64 = ReportPlan.quarter, day: Int64 = ReportPlan.day
        let base = Self.us("2026-11-01T00:00:00Z")
        for _ in 0..<300 {
            let from = base + Int64.random(in: 0..<(3 * day), using: &rng)
            let to: Int64 = from + Int64.random(in: 1..<(4 * day), using: &rng)
            let offset = Int64.random(in: -48...56, using: &rng) * quarter
            var localDays: [(day: String, start: Int64)] = []
            var midnight = RollupDeltas.floor(from - offset, day) + offset
            while midnight < to {
                localDays.append((day: String(midnight), start: midnight))
                midnight += day
            }
            let coverage: Int64? = Bool.random(using: &rng) ? nil : base + Int64.random(in: 0..<(6 * 24 * 4), using: &rng) * quarter
            let horizon: Int64? = Bool.random(using: &rng) ? nil : base + Int64.random(in: 0..<6, using: &rng) * day
            // When the report reads: none (every cut quarter's part from events), or anywhere
            // from a day before the range to a day after it.
            let now: Int64? = Bool.random(using: &rng) ? nil : from + Int64.random(in: -day..<(5 * day), using: &rng)
            let plan = ReportPlan(from: from, to: to, localDays: localDays, coverage: coverage, horizon: horizon, now: now)
            var pieces: [(Int64, Int64)] = plan.blocks.map { ($0.start, $0.start + RollupRows.Grain.days($0.grain) * day) }
            pieces += plan.quarters.map { ($0, $0 + quarter) }
            pieces += plan.eventRanges.map { ($0.lo, $0.hi) }
            pieces.sort { $0.0 < $1.0 }
            if now == nil {
                #expect(plan.wholeQuarters.isEmpty && plan.restRanges.isEmpty && plan.trendWholeQuarters.isEmpty)
                #expect(pieces.first?.0 == from && pieces.last?.1 == to)
                #expect(zip(pieces, pieces.dropFirst()).allSatisfy { $0.1 == $1.0 }, "totals pieces of [\(from), \(to))")
            }
            // Every instant of the range counted once, every other one not at all, once the
            // rests of the quarters read whole are taken away (checked where the count can change).
            Self.expectCoveredOnce(pieces, less: plan.restRanges.map { ($0.lo, $0.hi) }, from: from, to: to, "totals of [\(from), \(to)) at \(String(describing: now))")
            #expect(plan.quarters.allSatisfy { $0 >= (coverage ?? .min) })
            #expect(Set(plan.wholeQuarters).isSubset(of: Set(plan.quarters)) && Set(plan.trendWholeQuarters.map(\.lo)).isSubset(of: Set(plan.wholeQuarters)))
            #expect(plan.restRanges.allSatisfy { r in plan.wholeQuarters.contains { $0 <= r.lo && r.hi <= $0 + quarter } && (r.hi <= from || r.lo >= to) })
            if let now {
                // A quarter read whole has less time before now in its rest than in its part.
                for q in plan.wholeQuarters {
                    func before(_ lo: Int64, _ hi: Int64) -> Int64 { max(0, min(hi, now) - lo) }
                    let part = before(max(from, q), min(to, q + quarter))
                    let rest = plan.restRanges.filter { q <= $0.lo && $0.hi <= q + quarter }.reduce(0) { $0 + before($1.lo, $1.hi) }
                    #expect(rest < part)
                }
            }
            // Conversions: each instant of the range once (the whole days, the cut days read
            // whole, the runs added), each instant of a cut day read whole outside it taken away
            // once, and no cut day from the retention horizon on reads more than half a day of rows.
            var covered: [(Int64, Int64, Int)] = (plan.wholeDays + plan.conversionCutDays).map { ($0, $0 + day, 1) }
            covered += plan.conversionRuns.map { ($0.lo, $0.hi, $0.sign) }
            for probe in stride(from: RollupDeltas.floor(from, day), to: to + day, by: Int64.Stride(quarter / 3)) {
                let t = probe + 7
                let count = covered.reduce(0) { $1.0 <= t && t < $1.1 ? $0 + $1.2 : $0 }
                #expect(count == (from <= t && t < to ? 1 : 0), "conversions at \(t) of [\(from), \(to))")
            }
            // Rows are counted up to now: after it lie only conversions dated ahead.
            var rows: [Int64: Int64] = [:]
            for r in plan.conversionRuns { rows[RollupDeltas.floor(r.lo, day), default: 0] += max(0, min(r.hi, now ?? r.hi) - r.lo) }
            #expect(rows.allSatisfy { $0.key < horizon ?? .min || $0.value <= day / 2 })
            #expect(plan.conversionCutDays.allSatisfy { $0 >= horizon ?? .min })
            for (i, local) in localDays.enumerated() {
                let lo: Int64 = max(from, local.start)
                let hi: Int64 = min(to, i + 1 < localDays.count ? localDays[i + 1].start : to)
                var line: [(Int64, Int64)] = plan.trendRuns.filter { $0.day == local.day }.map { ($0.lo, $0.hi) }
                line += plan.trendEventRanges.filter { $0.day == local.day }.map { ($0.lo, $0.hi) }
                line.sort { $0.0 < $1.0 }
                if now == nil {
                    #expect(line.first?.0 == lo && line.last?.1 == hi && zip(line, line.dropFirst()).allSatisfy { $0.1 == $1.0 })
                }
                let rests = plan.trendWholeQuarters.filter { $0.day == local.day }.flatMap { q in
                    plan.restRanges.filter { q.lo <= $0.lo && $0.hi <= q.hi }.map { ($0.lo, $0.hi) }
                }
                Self.expectCoveredOnce(line, less: rests, from: lo, to: hi, "line of \(local.day) in [\(from), \(to)) at \(String(describing: now))")
                #expect(plan.trendRuns.allSatisfy { RollupDeltas.floor($0.lo, day) == RollupDeltas.floor($0.hi - 1, day) })
            }
        }
    }
}

extension ReportPlanTests {
    /// Pieces added, rests taken away: every instant of [from, to) counted once and every other
    /// instant not at all, checked at each boundary and the instant before it (the count only
    /// changes there).
    static func expectCoveredOnce(_ pieces: [(Int64, Int64)], less rests: [(Int64, Int64)], from: Int64, to: Int64, _ label: String) {
        let probes = Set((pieces + rests + [(from, to)]).flatMap { [$0.0, $0.0 - 1, $0.1, $0.1 - 1] })
        for t in probes {
            let count = pieces.reduce(0) { $1.0 <= t && t < $1.1 ? $0 + 1 : $0 } - rests.reduce(0) { $1.0 <= t && t < $1.1 ? $0 + 1 : $0 }
            #expect(count == (from <= t && t < to ? 1 : 0), "\(label): \(t) counted \(count) times")
        }
    }

    /// A report to now, the default, inside a collector taking thousands of events a second:
    /// the quarter hour now cuts is read whole from its rows, its rest (after now: only events
    /// dated ahead) taken away; nothing of the range is read from events, however many events the
    /// app stored in that quarter hour. It read all of them, for seconds, before.
    @Test func aReportToNowReadsItsLastQuarterHourWhole() {
        let to = Self.us("2026-12-05T10:19:31.613884Z"), now = to + 2_000
        let from = Self.us("2026-11-05T00:00:00Z")
        let days = (0...30).map { (day: "d\($0)", start: from + Int64($0) * ReportPlan.day) }
        let plan = ReportPlan(from: from, to: to, localDays: days, coverage: nil, now: now)
        #expect(plan.eventRanges.isEmpty && plan.trendEventRanges.isEmpty)
        #expect(plan.wholeQuarters == [Self.us("2026-12-05T10:15:00Z")])
        #expect(plan.restRanges == [Run(lo: to, hi: Self.us("2026-12-05T10:30:00Z"))])
        #expect(plan.trendWholeQuarters == [LabeledRun(lo: Self.us("2026-12-05T10:15:00Z"), hi: Self.us("2026-12-05T10:30:00Z"), day: "d30")])
        #expect(plan.quarters.last == Self.us("2026-12-05T10:15:00Z"))
        // Without a now, as before: the minutes from 10:15 come from events.
        let before = ReportPlan(from: from, to: to, localDays: days, coverage: nil)
        #expect(before.eventRanges == [Run(lo: Self.us("2026-12-05T10:15:00Z"), hi: to)] && before.wholeQuarters.isEmpty)
    }
}

@Suite struct DayEdgeTests {
    /// Each edge comes from its own named column of report_range.sql: local midnights in the
    /// zone, across a daylight-saving change (Bucharest went from UTC+2 to UTC+3 on 2026-03-29).
    @Test func edgesAreLocalMidnightsReadByName() throws {
        let db = try TestDatabase.create()
        let connection = try db.connect()
        defer { connection.close() }
        let reader = PostgresReportReader(connection: connection)
        let edges = try reader.dayEdges(timeZone: "Europe/Bucharest", fromDate: "2026-03-29", toDate: "2026-03-29", sinceDays: 2)
        #expect(edges.from == Timestamp(iso8601: "2026-03-28T22:00:00Z"))
        #expect(edges.to == Timestamp(iso8601: "2026-03-29T21:00:00Z"))
        let since = try #require(edges.since)
        // Two days ending today: yesterday's local midnight, between 24 and 48 hours before now (DST aside).
        #expect(since < edges.now && edges.now.microseconds - since.microseconds <= 49 * 3_600_000_000)
        #expect(edges.now.microseconds - since.microseconds >= 23 * 3_600_000_000)
        let none = try reader.dayEdges(timeZone: "UTC", fromDate: nil, toDate: nil, sinceDays: nil)
        #expect(none.from == nil && none.to == nil && none.since == nil)
    }
}

