import TapwireCore
import TapwireStatistics
import TapwireStore

/// The adjusted difference looked at once per UTC day, over every day up to it (`AnytimeUplift`,
/// Howard et al. 2021's normal mixture at α = 0.05): a team that opens the report every morning
/// and acts on the first day it excludes zero is wrong at most 5% of the time, which the
/// fixed-horizon interval read daily is not (docs/regressions.md, "Rich vs text-only, day after day").
public struct AnytimeAdjusted: Sendable, Equatable {
    public static let method = "normal-mixture confidence sequence (Howard et al. 2021), alpha 0.05"
    /// The anytime-valid 95% interval at the last look, which covers the whole range; nil when
    /// the adjusted difference is withheld.
    public var ci95: ConfidenceInterval?
    /// The first UTC day (YYYY-MM-DD) whose look's anytime-valid interval excluded zero.
    public var decidedOn: String?
    /// UTC days looked at: the days of the range with data.
    public var looks: Int = 0

    public init(ci95: ConfidenceInterval? = nil, decidedOn: String? = nil, looks: Int = 0) {
        self.ci95 = ci95
        self.decidedOn = decidedOn
        self.looks = looks
    }

    /// The looks of `days` (each day's own sums, in order), kept only when the adjusted figure
    /// itself is shown.
    init(days: [(day: String, sums: UpliftDay)], shown: Bool, minimum: MinimumSample) {
        guard shown, !days.isEmpty else { return }
        let looks = AnytimeUplift.evaluate(looks: days, minimum: minimum)
        ci95 = looks.latest?.withheld == nil ? looks.latest?.estimate?.anytimeValid : nil
        decidedOn = looks.decidedOn
        self.looks = days.count
    }
}
