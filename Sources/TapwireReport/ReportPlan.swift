import TapwireCore
import TapwireStatistics

/// Which rows answer which part of a report's range (docs/reports.md, "What each report reads").
/// Pure: the instants come from the database (the zone's midnights), the decisions are made here.
///
/// - Totals (counts by side, actions, histogram bins, the dismiss base) need only the range's
///   edges exact: its whole UTC days come from the fewest aligned blocks of 1, 2, 4, 8 and 16 days
///   that cover them (`RollupRows.Grain.dayBlocks`), the days its edges cut from quarter hours, and
///   the minutes off a quarter hour from events, or, where its rest has less to read, that quarter
///   hour whole less its rest (`wholeQuarters`).
/// - The adjusted difference adds each whole UTC day's sums; a cut day's part is one stratum per
///   category, counted from the same quarter hours and minutes as the totals.
/// - Conversions read the whole UTC days from their daily rollups and each cut day's part from
///   the rows of its credited notifications, whose times are exact: a part with no more time
///   before now than its rest as it is, else as its whole day from the daily rollups less the
///   rest of the day from those rows (`conversionCutDays`, `conversionRuns`; without now, a part
///   of more than half its day), so no cut day reads more than 12 hours of rows before now, and
///   today, in a report to now, reads only the conversions dated ahead of now (the counts and
///   exact decimal sums are additive, so either way is exact).
/// - The engagement line needs local days: each local day is a run of quarter hours of one or two
///   UTC days (every zone's midnight is a quarter hour), read from the days' quarter-hour arrays.
///
/// Quarter hours before `coverage` (an install whose events were stored before migration 0100)
/// are not in the rollups: those parts of cut days come from events, and the engagement line
/// reads whole hours there.
struct ReportPlan: Sendable, Equatable {
    static let quarter: Int64 = 900_000_000
    static let hour: Int64 = 3_600_000_000
    static let day: Int64 = 86_400_000_000

    /// [lo, hi), µs since 1970.
    struct Run: Sendable, Equatable {
        var lo: Int64
        var hi: Int64
    }

    /// A run of one UTC day's quarter-hour arrays (or of events) in one local day.
    struct LabeledRun: Sendable, Equatable {
        var lo: Int64
        var hi: Int64
        /// The local date, YYYY-MM-DD.
        var day: String
    }

    /// A block of days: its grain (`RollupRows.Grain.dayBlocks`) and first midnight.
    struct Block: Sendable, Equatable {
        var grain: Int16
        var start: Int64
    }

    /// The range's whole UTC days, by their midnights, in order.
    var wholeDays: [Int64] = []
    /// The fewest blocks of days that cover the whole days.
    var blocks: [Block] = []
    /// The quarter hours (starts) of the cut days read from the quarter-hour rows.
    var quarters: [Int64] = []
    /// The same quarter hours as runs, each within one UTC day: what the dismiss base's running
    /// sums are read over.
    var quarterRuns: [Run] = []
    /// What the totals read from events.
    var eventRanges: [Run] = []
    /// The cut quarter hours read whole from the quarter-hour rows, with the app's pending deltas
    /// of them added, less the part of each outside the range (`restRanges`, from events): a cut
    /// quarter whose rest has less to read than its part. The time before `now` is what counts:
    /// after it lie only events dated ahead, so the quarter a report to now cuts reads next to
    /// nothing from events, however busy the app (docs/reports.md, "The quarter hour a report cuts").
    var wholeQuarters: [Int64] = []
    /// The parts of `wholeQuarters` outside the range, taken away.
    var restRanges: [Run] = []
    /// The engagement line's runs of `wholeQuarters` (each a whole quarter hour, with its local
    /// day): the same pending deltas and rests, by local day.
    var trendWholeQuarters: [LabeledRun] = []
    /// A run of rows added to (`sign` 1) or taken from (-1) what conversions read.
    struct SignedRun: Sendable, Equatable {
        var lo: Int64
        var hi: Int64
        var sign: Int
    }

    /// The cut days whose rest has less time before now than their part (without now: whose part
    /// is more than half the day): conversions read them whole from their daily rollups, as that
    /// day's part, and take the rest of the day away (`conversionRuns`; `readsWholeDay`).
    var conversionCutDays: [Int64] = []
    /// What conversions read of the cut days from their per-notification rows (the quarter hours
    /// and the minutes alike; a conversion's rows keep exact times): a part of at most half its
    /// day, added; the rest of a day of `conversionCutDays`, taken away.
    var conversionRuns: [SignedRun] = []
    /// The engagement line's runs of rollup_trend's arrays, each within one UTC day.
    var trendRuns: [LabeledRun] = []
    /// What the engagement line reads from events.
    var trendEventRanges: [LabeledRun] = []

    /// `localDays`: every local date the range touches with the instant its midnight falls on
    /// (the first may lie before `from`), in order. `horizon`: the retention horizon, before
    /// which the conversion rollups keep counts whose rows are gone, so a cut day that starts
    /// before it is read from its rows alone, never as its day less the rest.
    /// `now`: when the report reads (nil: every cut quarter's part from events, as before
    /// `wholeQuarters`).
    init(from: Int64, to: Int64, localDays: [(day: String, start: Int64)], coverage: Int64?, horizon: Int64? = nil, now: Int64? = nil) {
        let covered = coverage ?? .min
        var d = Self.floor(from, Self.day)
        while d < to {
            let a = max(from, d), b = min(to, d + Self.day)
            if a == d && b == d + Self.day {
                wholeDays.append(d)
            } else {
                if d >= horizon ?? .min, Self.readsWholeDay(part: Run(lo: a, hi: b), day: d, now: now) {
                    conversionCutDays.append(d)
                    for (lo, hi) in [(d, a), (b, d + Self.day)] where lo < hi {
                        conversionRuns.append(SignedRun(lo: lo, hi: hi, sign: -1))
                    }
                } else {
                    conversionRuns.append(SignedRun(lo: a, hi: b, sign: 1))
                }
                let lo = max(Self.ceil(a, Self.quarter), covered), hi = Self.floor(b, Self.quarter)
                if lo < hi {
                    var wholeLo = lo, wholeHi = hi
                    if a < lo, lo == Self.ceil(a, Self.quarter), lo - Self.quarter >= covered, let now,
                       Self.readsWhole(part: Run(lo: a, hi: lo), rest: Run(lo: lo - Self.quarter, hi: a), now: now) {
                        wholeLo = lo - Self.quarter
                        wholeQuarters.append(wholeLo)
                        restRanges.append(Run(lo: wholeLo, hi: a))
                    } else {
                        Self.append(Run(lo: a, hi: lo), to: &eventRanges)
                    }
                    if hi < b, let now, Self.readsWhole(part: Run(lo: hi, hi: b), rest: Run(lo: b, hi: hi + Self.quarter), now: now) {
                        wholeHi = hi + Self.quarter
                        wholeQuarters.append(hi)
                        restRanges.append(Run(lo: b, hi: wholeHi))
                    } else {
                        Self.append(Run(lo: hi, hi: b), to: &eventRanges)
                    }
                    quarters += Array(stride(from: wholeLo, to: wholeHi, by: Int(Self.quarter)))
                    quarterRuns.append(Run(lo: wholeLo, hi: wholeHi))
                } else {
                    Self.append(Run(lo: a, hi: b), to: &eventRanges)
                }
            }
            d += Self.day
        }
        blocks = Self.cover(wholeDays)
        for (i, local) in localDays.enumerated() {
            let start = max(from, local.start)
            let end = min(to, i + 1 < localDays.count ? localDays[i + 1].start : to)
            var d = Self.floor(start, Self.day)
            while d < end {
                let a = max(start, d), b = min(end, d + Self.day)
                // Split where the quarter hours become complete: before it, whole hours only.
                for (lo, hi) in [(a, min(b, max(a, covered))), (max(a, min(b, covered)), b)] where lo < hi {
                    let unit = lo < covered ? Self.hour : Self.quarter
                    let runLo = Self.ceil(lo, unit), runHi = Self.floor(hi, unit)
                    if runLo < runHi {
                        trendRuns.append(LabeledRun(lo: runLo, hi: runHi, day: local.day))
                        Self.append(LabeledRun(lo: lo, hi: runLo, day: local.day), to: &trendEventRanges)
                        Self.append(LabeledRun(lo: runHi, hi: hi, day: local.day), to: &trendEventRanges)
                    } else {
                        Self.append(LabeledRun(lo: lo, hi: hi, day: local.day), to: &trendEventRanges)
                    }
                }
                d += Self.day
            }
        }
        // The line reads each quarter of `wholeQuarters` as the totals do: its part, one of the
        // line's pieces from events (local midnights are quarter hours), becomes a whole run.
        for q in wholeQuarters {
            let part = Run(lo: max(from, q), hi: min(to, q + Self.quarter))
            guard let i = trendEventRanges.firstIndex(where: { $0.lo <= part.lo && part.hi <= $0.hi }) else { continue }
            let piece = trendEventRanges.remove(at: i)
            let split = [LabeledRun(lo: piece.lo, hi: part.lo, day: piece.day), LabeledRun(lo: part.hi, hi: piece.hi, day: piece.day)]
            trendEventRanges.insert(contentsOf: split.filter { $0.lo < $0.hi }, at: i)
            let whole = LabeledRun(lo: q, hi: q + Self.quarter, day: piece.day)
            trendRuns.append(whole)
            trendWholeQuarters.append(whole)
        }
    }

    /// Whether a cut quarter is read whole less its rest: when the rest has less time before
    /// `now` than the part (what lies after `now` holds only events dated ahead). A tie reads
    /// the part.
    static func readsWhole(part: Run, rest: Run, now: Int64) -> Bool {
        readsWhole(part: part, rest: [rest], now: now)
    }

    /// The rule of both: the rest's runs have less time before `now` (all of it without `now`)
    /// than the part.
    private static func readsWhole(part: Run, rest: [Run], now: Int64?) -> Bool {
        func before(_ run: Run) -> Int64 { max(0, min(run.hi, now ?? run.hi) - run.lo) }
        return rest.map(before).reduce(0, +) < before(part)
    }

    /// Whether conversions read a cut day whole from their daily rollups less the rest of the
    /// day from rows: when the rest has less time before `now` than the part, as a cut quarter
    /// is read (`readsWhole`), so a report to now reads today from the rollups at any hour (the
    /// rest, after now, holds only conversions dated ahead); a tie reads the part. Without `now`,
    /// when the part is more than half the day.
    static func readsWholeDay(part: Run, day d: Int64, now: Int64?) -> Bool {
        readsWhole(part: part, rest: [Run(lo: d, hi: part.lo), Run(lo: part.hi, hi: d + day)], now: now)
    }

    /// The fewest aligned blocks that cover `days` (midnights, in order, runs of consecutive
    /// days): at each day, the largest block that starts there and ends inside the run.
    static func cover(_ days: [Int64]) -> [Block] {
        var blocks: [Block] = []
        var i = 0
        while i < days.count {
            var runEnd = i
            while runEnd + 1 < days.count, days[runEnd + 1] == days[runEnd] + day { runEnd += 1 }
            var d = days[i]
            let end = days[runEnd] + day
            while d < end {
                let grain = RollupRows.Grain.dayBlocks.reversed().first { grain in
                    RollupRows.Grain.block(of: d, grain: grain) == d && d + RollupRows.Grain.days(grain) * day <= end
                } ?? RollupRows.Grain.day
                blocks.append(Block(grain: grain, start: d))
                d += RollupRows.Grain.days(grain) * day
            }
            i = runEnd + 1
        }
        return blocks
    }

    /// Appends a non-empty range, merged with the last one when they meet.
    private static func append(_ run: Run, to runs: inout [Run]) {
        guard run.lo < run.hi else { return }
        if let last = runs.last, last.hi == run.lo {
            runs[runs.count - 1].hi = run.hi
        } else {
            runs.append(run)
        }
    }

    private static func append(_ run: LabeledRun, to runs: inout [LabeledRun]) {
        guard run.lo < run.hi else { return }
        if let last = runs.last, last.hi == run.lo, last.day == run.day {
            runs[runs.count - 1].hi = run.hi
        } else {
            runs.append(run)
        }
    }

    static func floor(_ value: Int64, _ unit: Int64) -> Int64 { RollupDeltas.floor(value, unit) }
    static func ceil(_ value: Int64, _ unit: Int64) -> Int64 { -RollupDeltas.floor(-value, unit) }

    /// Whether the engagement line reads the same minutes from events as the totals (then one
    /// read serves both).
    var trendReadsTheSameEvents: Bool {
        trendEventRanges.map { Run(lo: $0.lo, hi: $0.hi) } == eventRanges
    }
}
