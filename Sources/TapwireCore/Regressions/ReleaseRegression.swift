import TapwireStatistics

/// The model of the release-regression check: a category's button (or open, reply, dismiss)
/// whose use collapsed in the newest app version, found by `ReleaseRegressionRule` and explained
/// in docs/regressions.md.

/// What a regression series measures: the share of a category's delivered notifications that
/// got this response.
public enum RegressionOutcome: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The default action: the user opened the notification.
    case opens
    /// An action the app registered in the category, by its identifier.
    case action(String)
    /// Registered actions answered with text (a UNTextInputNotificationAction's reply).
    case textReplies
    /// The dismiss action, reported only under customDismissAction.
    case dismissals

    /// The identifier a finding names: Apple's for opens and dismissals, the app's for an action;
    /// nil for text replies, which span the category's text-input actions.
    public var actionIdentifier: String? {
        switch self {
        case .opens: SystemAction.open
        case .action(let identifier): identifier
        case .textReplies: nil
        case .dismissals: SystemAction.dismiss
        }
    }

    /// A stable name of the kind: `opens`, `action`, `textReplies`, `dismissals`.
    public var kind: String {
        switch self {
        case .opens: "opens"
        case .action: "action"
        case .textReplies: "textReplies"
        case .dismissals: "dismissals"
        }
    }

    public var description: String {
        if case .action(let identifier) = self { return "action \(identifier)" }
        return kind
    }

    private var order: Int {
        switch self {
        case .opens: 0
        case .action: 1
        case .textReplies: 2
        case .dismissals: 3
        }
    }

    public static func < (a: RegressionOutcome, b: RegressionOutcome) -> Bool {
        if a.order != b.order { return a.order < b.order }
        if case .action(let x) = a, case .action(let y) = b { return x.utf8.lexicographicallyPrecedes(y.utf8) }
        return false
    }
}

/// One UTC hour of one category on one app version and platform: what the rollups keep at their
/// finest grain (rollup_counts and rollup_actions, grain 0), summed over the dimensions the
/// caller does not stratify by. Rows with the same keys are added, so counts and actions may
/// come in separate rows.
public struct RegressionRow: Sendable, Equatable {
    public var category: String
    public var appVersion: String
    public var platform: String
    /// Further stratum dimensions the caller adjusts for (campaign, say), as one key; '' for none.
    public var segment: String
    /// Start of the UTC hour, µs since 1970.
    public var hour: Int64
    public var delivered: Int
    public var opens: Int
    public var dismissals: Int
    /// Responses with a registered action that carried a reply.
    public var textReplies: Int
    /// Responses per registered action identifier.
    public var actions: [String: Int]

    public init(category: String, appVersion: String, platform: String, segment: String = "", hour: Int64, delivered: Int,
                opens: Int = 0, dismissals: Int = 0, textReplies: Int = 0, actions: [String: Int] = [:]) {
        self.category = category
        self.appVersion = appVersion
        self.platform = platform
        self.segment = segment
        self.hour = hour
        self.delivered = delivered
        self.opens = opens
        self.dismissals = dismissals
        self.textReplies = textReplies
        self.actions = actions
    }
}

/// One UTC day of one category on one app version and platform, as the release rollups keep it
/// (migration 0080): each outcome's count per hour of the day. The hourly check reads these, a
/// row per day where `RegressionRow` would be one per hour, so nothing is built per hour.
public struct RegressionDayRow: Sendable, Equatable {
    public var category: String
    public var appVersion: String
    public var platform: String
    /// Further stratum dimensions the caller adjusts for, as one key; '' for none.
    public var segment: String
    /// Start of the UTC day, µs since 1970.
    public var day: Int64
    /// Per hour of the day, 24 each.
    public var delivered: [Int]
    public var opens: [Int]
    public var dismissals: [Int]
    public var textReplies: [Int]
    /// Responses per registered action identifier, per hour of the day.
    public var actions: [RegressionActionHours]

    public init(category: String, appVersion: String, platform: String, segment: String = "", day: Int64, delivered: [Int],
                opens: [Int], dismissals: [Int], textReplies: [Int], actions: [RegressionActionHours] = []) {
        precondition([delivered, opens, dismissals, textReplies].allSatisfy { $0.count == 24 } && actions.allSatisfy { $0.counts.count == 24 },
                     "a day row holds 24 hours of each outcome")
        self.category = category
        self.appVersion = appVersion
        self.platform = platform
        self.segment = segment
        self.day = day
        self.delivered = delivered
        self.opens = opens
        self.dismissals = dismissals
        self.textReplies = textReplies
        self.actions = actions
    }

    /// The hours with anything counted, as hourly rows.
    public var hourly: [RegressionRow] {
        (0..<24).compactMap { h in
            var perAction: [String: Int] = [:]
            for action in actions where action.counts[h] != 0 { perAction[action.identifier, default: 0] += action.counts[h] }
            guard delivered[h] != 0 || opens[h] != 0 || dismissals[h] != 0 || textReplies[h] != 0 || !perAction.isEmpty else { return nil }
            return RegressionRow(category: category, appVersion: appVersion, platform: platform, segment: segment,
                                 hour: day + Int64(h) * RollupDeltas.microsecondsPerHour, delivered: delivered[h], opens: opens[h],
                                 dismissals: dismissals[h], textReplies: textReplies[h], actions: perAction)
        }
    }
}

/// One registered action's responses per hour of a `RegressionDayRow`'s day.
public struct RegressionActionHours: Sendable, Equatable {
    public var identifier: String
    /// 24 counts, one per hour of the day.
    public var counts: [Int]

    public init(identifier: String, counts: [Int]) {
        self.identifier = identifier
        self.counts = counts
    }
}

/// The settings of the check, with the defaults docs/regressions.md argues for.
public struct RegressionConfiguration: Sendable, Equatable {
    /// The chance that a version comparison with no real change ever raises a finding in any of
    /// its series, over every look for as long as it runs. Split evenly over the series.
    public var familyAlpha: Double
    /// The smallest fall worth a finding, as a share of the baseline's rate: a finding needs the
    /// whole anytime-valid interval below −minimumRelativeDrop × baseline rate. Default 0.10.
    public var minimumRelativeDrop: Double
    /// Deliveries each side must have, and outcomes each side must expect, before a look counts.
    public var minimumSample: MinimumSample
    /// Σ n1·n2/N (candidate × baseline deliveries over their sum, per stratum) at which the
    /// boundary is tightest. Default 2,500: Eppo's N_tune of 10,000 deliveries split evenly.
    public var tuningEffectiveDeliveries: Double
    /// The version to test; nil: the newest, the highest version number (compared number by
    /// number) among those that delivered.
    public var candidateVersion: String?
    /// How many UTC days, from its first, the wired check follows a version (the rows it reads;
    /// the rule itself evaluates whatever rows it is given). After that its verdict stays as it
    /// was at the end of the last day. Default 28 (docs/regressions.md, "The hourly check").
    public var horizonDays: Int

    public static let `default` = RegressionConfiguration()

    public init(familyAlpha: Double = 0.05, minimumRelativeDrop: Double = 0.10, minimumSample: MinimumSample = .default,
                tuningEffectiveDeliveries: Double = 2_500, candidateVersion: String? = nil, horizonDays: Int = 28) {
        self.familyAlpha = familyAlpha
        self.minimumRelativeDrop = minimumRelativeDrop
        self.minimumSample = minimumSample
        self.tuningEffectiveDeliveries = tuningEffectiveDeliveries
        self.candidateVersion = candidateVersion
        self.horizonDays = horizonDays
    }

    /// Nil when usable, otherwise what to fix.
    public var problem: String? {
        if !(familyAlpha > 0 && familyAlpha < 1) { return "the family's alpha must lie strictly between 0 and 1" }
        if !(minimumRelativeDrop >= 0 && minimumRelativeDrop < 1) { return "the minimum drop must be at least 0 and below 1 (a share of the baseline rate)" }
        if !(tuningEffectiveDeliveries > 0 && tuningEffectiveDeliveries.isFinite) { return "the tuning sample must be a positive number of deliveries" }
        if minimumSample.perSide < 1 || !(minimumSample.expectedCount >= 0) { return "the minimum sample must be at least 1 delivery per side" }
        if !(1...400).contains(horizonDays) { return "the horizon must be from 1 to 400 days" }
        return nil
    }
}

/// One side's totals at a look, over the strata where both sides delivered.
public struct RegressionSide: Sendable, Equatable {
    public var delivered: Int
    public var count: Int
    public var rate: Double { delivered > 0 ? Double(count) / Double(delivered) : 0 }

    public init(delivered: Int, count: Int) {
        self.delivered = delivered
        self.count = count
    }
}

/// What one look saw: the stratified difference (candidate − baseline, a fraction) under the
/// boundary, the pooled one beside it, both sides' totals and the drop it is tested against.
public struct RegressionEvidence: Sendable, Equatable {
    /// The end of the look's last hour (or the evaluation instant, within a partial hour), µs.
    public var lookAt: Int64
    /// Mantel–Haenszel over platform × UTC day (× segment).
    public var difference: Double
    /// At the series' alpha (the family's, split), valid at every look.
    public var anytimeValid: ConfidenceInterval
    /// Sato's 95% interval: what a single look decided in advance could claim.
    public var fixedHorizon95: ConfidenceInterval
    /// The variance behind `anytimeValid`: the larger of Sato's and the one under no difference.
    public var variance: Double
    public var pooledDifference: Double
    public var candidate: RegressionSide
    public var baseline: RegressionSide
    /// The baseline's rate standardised to the strata's weights: what the drop is a share of.
    public var referenceRate: Double
    /// The drop tested against, a fraction: minimumRelativeDrop × referenceRate.
    public var minimumDrop: Double
    /// Σ n1·n2/N: the boundary's time.
    public var effectiveDeliveries: Double
    /// Strata with both sides.
    public var strata: Int
    /// Deliveries of strata (platform × day) in which a side had more responses than
    /// deliveries, left out.
    public var notMeaningfulDeliveries: Int

    /// The whole interval lies below −minimumDrop: a drop at least that large, at this look.
    public var crossesMinimumDrop: Bool { anytimeValid.upper < -minimumDrop }
    /// The whole interval lies above −minimumDrop: a drop that large is ruled out.
    public var rulesOutMinimumDrop: Bool { anytimeValid.lower > -minimumDrop }
}

/// A flagged series: the anytime-valid interval fell wholly below the minimum drop at some look.
public struct RegressionFinding: Sendable, Equatable {
    public var category: String
    public var outcome: RegressionOutcome
    public var candidateVersion: String
    /// The newest version in this series' baseline.
    public var baselineVersion: String
    /// Every version pooled into this series' baseline, newest first.
    public var baselineVersions: [String]
    /// The first look whose interval fell below the minimum drop, µs.
    public var detectedAt: Int64
    /// That look's evidence.
    public var atDetection: RegressionEvidence
    /// The latest look's evidence (what a person sees now).
    public var latest: RegressionEvidence
}

/// Why a series has no verdict yet.
public enum RegressionShortfall: Sendable, Equatable, CustomStringConvertible {
    /// The candidate delivered none of the category.
    case noCandidateDeliveries
    /// No baseline version that has this outcome delivered the category in an hour the candidate did.
    case noSharedHours
    /// Fewer deliveries than the minimum on a side, in the strata where both delivered.
    case belowMinimumDeliveries(candidate: Int, baseline: Int, required: Int)
    /// Too few outcomes expected on a side for the normal approximation (Cochran's rule).
    case expectedCountBelowMinimum(expected: Double, required: Double)

    public var code: String {
        switch self {
        case .noCandidateDeliveries: "no_candidate_deliveries"
        case .noSharedHours: "no_shared_hours"
        case .belowMinimumDeliveries: "below_minimum_deliveries"
        case .expectedCountBelowMinimum: "expected_count_below_minimum"
        }
    }

    public var description: String {
        switch self {
        case .noCandidateDeliveries:
            "the candidate version has delivered none of this category yet"
        case .noSharedHours:
            "no baseline version with this outcome delivered the category in an hour the candidate did"
        case let .belowMinimumDeliveries(candidate, baseline, required):
            "fewer than \(required) delivered on a side in the hours both delivered (candidate \(candidate), baseline \(baseline))"
        case let .expectedCountBelowMinimum(expected, required):
            "fewer than \(Self.number(required)) responses expected on a side (\(Self.number(expected)))"
        }
    }

    private static func number(_ x: Double) -> String {
        x == x.rounded() && abs(x) < 1e15 ? String(Int(x)) : String((x * 10).rounded() / 10)
    }
}

/// Why a series is not compared at all, and is not counted in the family.
public enum RegressionExemption: Sendable, Equatable, CustomStringConvertible {
    /// No earlier version registered or delivered the category: a new category is no regression.
    case newCategory
    /// No earlier version's manifest has this outcome (a new action, the first text-input action,
    /// customDismissAction newly set).
    case newOutcome
    /// The candidate's manifest no longer has what earlier versions registered: a manifest change,
    /// not a regression. `versions` registered it.
    case removedFromManifest(versions: [String])

    public var code: String {
        switch self {
        case .newCategory: "new_category"
        case .newOutcome: "new_outcome"
        case .removedFromManifest: "manifest_change"
        }
    }

    public var description: String {
        switch self {
        case .newCategory: "the category is new in the candidate version"
        case .newOutcome: "new in the candidate version's manifest"
        case .removedFromManifest(let versions): "removed by the candidate version's manifest (registered by \(versions.joined(separator: ", ")))"
        }
    }
}

/// The verdict on one category × outcome.
public enum RegressionDecision: Sendable, Equatable {
    case flagged(RegressionFinding)
    /// Enough data and no crossing: the latest look's evidence.
    case fine(RegressionEvidence)
    /// Not yet testable. The deliveries are those of the hours both sides delivered (of every
    /// hour, when no hour is shared).
    case notEnoughData(RegressionShortfall, candidateDelivered: Int, baselineDelivered: Int)
    case exempt(RegressionExemption)
}

public struct RegressionSeriesResult: Sendable, Equatable {
    public var category: String
    public var outcome: RegressionOutcome
    public var decision: RegressionDecision
    /// Baseline versions pooled for this series, newest first (empty when exempt).
    public var baselineVersions: [String]
}

/// The newest version against the versions before it, every category × outcome.
public struct RegressionComparison: Sendable, Equatable {
    public var candidateVersion: String
    /// Every other version that delivered, newest (highest) first. A series pools those of them that have
    /// its outcome (see docs/regressions.md, "The baseline").
    public var baselineVersions: [String]
    /// The instant evaluated, µs: only hours before it are used.
    public var asOf: Int64
    /// Series compared (not exempt): the family the alpha is split over.
    public var seriesInFamily: Int
    /// familyAlpha / seriesInFamily.
    public var alphaPerSeries: Double
    /// The candidate posted no manifest: only opens are compared.
    public var candidateManifestMissing: Bool
    /// By category, then outcome.
    public var results: [RegressionSeriesResult]

    public var findings: [RegressionFinding] {
        results.compactMap { if case .flagged(let finding) = $0.decision { finding } else { nil } }
    }
}

/// The rule's answer: a comparison, or why there is none.
public enum RegressionEvaluation: Sendable, Equatable {
    case comparison(RegressionComparison)
    /// Fewer than two app versions delivered before the instant (or the configured candidate never did).
    case noComparison(String)
}

/// One UTC day of a series, over the cells (hour × platform × segment) both sides delivered in:
/// what the report charts for a flagged outcome.
public struct RegressionDay: Sendable, Equatable {
    /// The UTC midnight, µs since 1970.
    public var day: Int64
    public var candidate: RegressionSide
    public var baseline: RegressionSide

    public init(day: Int64, candidate: RegressionSide, baseline: RegressionSide) {
        self.day = day
        self.candidate = candidate
        self.baseline = baseline
    }
}

/// The hourly check of one app as of an instant, as the store ran it: which days it read, the
/// rule's answer, and the days of every flagged series.
public struct RegressionCheck: Sendable, Equatable {
    /// The instant asked for.
    public var asOf: Int64
    /// The end of the last look: the whole hour at or before `asOf`, or the end of the candidate's
    /// horizon when that came first. Only hours before it were used.
    public var looksEnd: Int64
    /// The UTC days read, [from, to), µs; nil when no version delivered in the horizon before `asOf`.
    public var daysRead: Span?
    public var evaluation: RegressionEvaluation
    /// Per flagged series, by category and outcome: its days, oldest first.
    public var days: [RegressionSeriesKey: [RegressionDay]]
    /// Which look this is and when it was taken: the collectors' stored look of the hour, or
    /// computed for this request. Nil when the caller did not say (a bare `RegressionStore` check).
    public var look: RegressionLookOrigin?

    /// A range of instants [from, to), µs.
    public struct Span: Sendable, Equatable {
        public var from: Int64
        public var to: Int64
        public init(from: Int64, to: Int64) {
            self.from = from
            self.to = to
        }
    }

    public init(asOf: Int64, looksEnd: Int64, daysRead: Span?, evaluation: RegressionEvaluation,
                days: [RegressionSeriesKey: [RegressionDay]] = [:], look: RegressionLookOrigin? = nil) {
        self.asOf = asOf
        self.looksEnd = looksEnd
        self.daysRead = daysRead
        self.evaluation = evaluation
        self.days = days
        self.look = look
    }

    public var comparison: RegressionComparison? {
        if case .comparison(let comparison) = evaluation { comparison } else { nil }
    }
}

/// A series' identity within a comparison.
public struct RegressionSeriesKey: Sendable, Hashable {
    public var category: String
    public var outcome: RegressionOutcome

    public init(category: String, outcome: RegressionOutcome) {
        self.category = category
        self.outcome = outcome
    }
}

/// Where a shown look comes from (docs/regressions.md, "Stored looks").
public enum RegressionLookOrigin: Sendable, Equatable, Codable {
    /// Taken by the collectors' hourly check at `takenAt` (µs since 1970) and stored: it does not
    /// count events that arrived after that.
    case stored(takenAt: Int64)
    /// Computed for this request from the rollups as they are (a replay computed twice says the
    /// same, so no time is attached).
    case computed

    /// `stored` or `computed`: the JSON's `lookSource`.
    public var source: String {
        switch self {
        case .stored: "stored"
        case .computed: "computed"
        }
    }

    public var takenAt: Int64? {
        if case .stored(let takenAt) = self { takenAt } else { nil }
    }
}

extension RegressionConfiguration {
    /// The version of the stored looks' shape and of the rule that made them: bump it whenever
    /// either changes, so a collector never serves a look an older build took.
    public static let lookFormatVersion = 1

    /// Everything a look's result depends on besides the data and the manifests, as one stable
    /// text: a stored look is served only to a reader with the same fingerprint.
    public var lookFingerprint: String {
        "v\(Self.lookFormatVersion) alpha=\(familyAlpha) drop=\(minimumRelativeDrop) sample=\(minimumSample.perSide)/\(minimumSample.expectedCount) "
            + "tune=\(tuningEffectiveDeliveries) horizon=\(horizonDays) candidate=\(candidateVersion.map { "[\($0)]" } ?? "newest")"
    }
}

// The collectors store each hour's look as JSON (TapwireStore.RegressionLookStore): the shapes are
// synthesised, so a change to any of them bumps `RegressionConfiguration.lookFormatVersion`.
extension RegressionOutcome: Codable {}
extension RegressionCheck: Codable {}
extension RegressionCheck.Span: Codable {}
extension RegressionSeriesKey: Codable {}
extension RegressionSide: Codable {}
extension RegressionEvidence: Codable {}
extension RegressionFinding: Codable {}
extension RegressionShortfall: Codable {}
extension RegressionExemption: Codable {}
extension RegressionDecision: Codable {}
extension RegressionSeriesResult: Codable {}
extension RegressionComparison: Codable {}
extension RegressionEvaluation: Codable {}
extension RegressionDay: Codable {}
