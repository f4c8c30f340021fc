/// The rich vs text-only adjusted difference made safe to read every morning: beside the
/// fixed-horizon 95% interval (valid for one look decided in advance), an anytime-valid 95%
/// interval (Howard et al.'s normal mixture, `NormalMixtureBoundary`) that stays valid however
/// often the report is opened, and the first day it excluded zero (docs/regressions.md,
/// "Rich vs text-only, day after day").

public struct AnytimeUplift: Sendable, Equatable {
    /// In the order given, cumulative.
    public var days: [AnytimeUpliftDay]
    /// The first day the anytime-valid interval excluded 0 ("decided on …"), nil before.
    public var decidedOn: String?

    /// The last day's figures.
    public var latest: AnytimeUpliftDay? { days.last }

    /// Default tuning: Σ n1·n2/N = 2,500, Eppo's N_tune of 10,000 deliveries split evenly.
    public static let defaultTuning = 2_500.0

    /// `days` in order, each holding that day's strata (a stratum is a campaign × platform of that
    /// UTC day: its counts never reach into another day, docs/reports.md), each side of a stratum a
    /// cell that is used only when it has deliveries and no more engaged than delivered. Each day's
    /// look is the report over every day up to it. Days below `minimum` are withheld (and cannot
    /// decide).
    public static func evaluate(days: [DailyStrata], alpha: Double = 0.05, tuningEffectiveTrials: Double = defaultTuning,
                                minimum: MinimumSample = .default) -> AnytimeUplift {
        evaluate(looks: days.map { day in
            var sums = UpliftDay()
            // Sorted, so the sums (and the figures) never depend on hashing.
            for (_, s) in day.strata.sorted(by: { $0.key < $1.key }) {
                sums.add(rich: (s.n1, s.x1), textOnly: (s.n2, s.x2))
            }
            return (day.day, sums)
        }, alpha: alpha, tuningEffectiveTrials: tuningEffectiveTrials, minimum: minimum)
    }

    /// One look per entry of `looks`, in order, each adding its day's sums to those of the days
    /// before: what the report does with the sums it reads per category and UTC day.
    public static func evaluate(looks: [(day: String, sums: UpliftDay)], alpha: Double = 0.05,
                                tuningEffectiveTrials: Double = defaultTuning, minimum: MinimumSample = .default) -> AnytimeUplift {
        let boundary = NormalMixtureBoundary(alpha: alpha, optimizedAt: tuningEffectiveTrials)
        var running = UpliftDay()
        var out: [AnytimeUpliftDay] = []
        var decidedOn: String?
        for (label, day) in looks {
            running = running + day
            let snapshot = running.snapshot
            let estimate = snapshot.estimate(boundary: boundary)
            let p = snapshot.pooled
            let withheld = estimate == nil
                ? "no stratum has both rich and text-only deliveries"
                : minimum.insufficiency(x1: p.x1, n1: p.n1, x2: p.x2, n2: p.n2).map { "in strata with both sides, " + $0 }
            let look = AnytimeUpliftDay(day: label, estimate: estimate, withheld: withheld)
            if decidedOn == nil, look.excludesZero { decidedOn = label }
            out.append(look)
        }
        return AnytimeUplift(days: out, decidedOn: decidedOn)
    }
}
