import Foundation
import TapwireStatistics

/// The release-regression rule as a pure function: hourly rows and each version's manifest in,
/// a verdict per category × outcome out (docs/regressions.md).
///
/// - The candidate is the newest version (the highest version number that delivered); the baseline of a series
///   is every other version that has the series' outcome, pooled within each stratum, so each
///   weighs by its deliveries there.
/// - Within a series, only (platform, hour) cells in which both sides delivered are used, and
///   they are compared within strata of platform × UTC day (× the caller's segment) by
///   Mantel–Haenszel, with Sato's variance.
/// - Every hour is a look. A series is flagged at the first look whose anytime-valid interval
///   (Howard et al.'s normal mixture at alpha / series) lies wholly below −minimum drop.
/// - The collectors store its answer once an hour (docs/regressions.md, "Stored looks"): a change
///   to what it answers bumps `RegressionConfiguration.lookFormatVersion`, so no stored look of
///   the old rule is served.
public struct ReleaseRegressionRule: Sendable {
    public var configuration: RegressionConfiguration

    public init(configuration: RegressionConfiguration = .default) {
        precondition(configuration.problem == nil, configuration.problem ?? "")
        self.configuration = configuration
    }

    /// `rows` must hold only events before `asOf` (µs); rows of hours starting at or after it
    /// are ignored. `manifests` maps an app version to the manifest it posted.
    public func evaluate(rows: [RegressionRow], manifests: [String: Manifest], asOf: Int64) -> RegressionEvaluation {
        evaluate(RegressionTable(rows: rows, before: asOf), manifests: manifests, asOf: asOf)
    }

    /// The same verdict from day rows (what the hourly check reads from the release rollups),
    /// with each flagged series' daily totals, what the report charts beside a finding.
    public func evaluate(days: [RegressionDayRow], manifests: [String: Manifest],
                         asOf: Int64) -> (evaluation: RegressionEvaluation, days: [RegressionSeriesKey: [RegressionDay]]) {
        let table = RegressionTable(days: days, before: asOf)
        let evaluation = evaluate(table, manifests: manifests, asOf: asOf)
        var charts: [RegressionSeriesKey: [RegressionDay]] = [:]
        if case .comparison(let comparison) = evaluation {
            for finding in comparison.findings {
                charts[RegressionSeriesKey(category: finding.category, outcome: finding.outcome)] =
                    Self.days(table: table, category: finding.category, outcome: finding.outcome, candidate: comparison.candidateVersion,
                              baselineVersions: finding.baselineVersions)
            }
        }
        return (evaluation, charts)
    }

    func evaluate(_ table: RegressionTable, manifests: [String: Manifest], asOf: Int64) -> RegressionEvaluation {
        let newestFirst = table.deliveredVersions.sorted(by: Self.newer)
        guard let candidate = configuration.candidateVersion ?? newestFirst.first else {
            return .noComparison("no app version delivered before the instant evaluated")
        }
        guard table.deliveredVersions.contains(candidate) else {
            return .noComparison("version \(candidate) delivered nothing before the instant evaluated")
        }
        let baselines = newestFirst.filter { $0 != candidate }
        guard !baselines.isEmpty else {
            return .noComparison("only version \(candidate) delivered: there is no earlier version to compare it with")
        }
        let delivering = table.categories.mapValues(\.delivering)

        // The series: what the candidate has, what is new, what its manifest removed.
        let candidateManifest = manifests[candidate]
        var categories = Set(delivering.filter { $0.value.contains(candidate) }.keys)
        if let candidateManifest {
            categories.formUnion(candidateManifest.categories.map(\.identifier))
            for version in baselines { categories.formUnion(manifests[version]?.categories.map(\.identifier) ?? []) }
        }
        var plans: [SeriesPlan] = []
        for category in categories.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) {
            plans += Self.plan(category: category, candidateManifest: candidateManifest, baselines: baselines, manifests: manifests,
                               delivering: delivering[category] ?? [], candidate: candidate)
        }
        let family = plans.filter { $0.exemption == nil }.count
        let alpha = configuration.familyAlpha / Double(max(1, family))
        let boundary = NormalMixtureBoundary(alpha: alpha, optimizedAt: configuration.tuningEffectiveDeliveries)

        var results: [RegressionSeriesResult] = []
        for plan in plans {
            if let exemption = plan.exemption {
                results.append(RegressionSeriesResult(category: plan.category, outcome: plan.outcome, decision: .exempt(exemption),
                                                      baselineVersions: []))
                continue
            }
            let pooledVersions = baselines.filter { plan.eligible.contains($0) && delivering[plan.category]?.contains($0) == true }
            let decision = decide(plan, table: table, candidate: candidate, pooledVersions: pooledVersions, boundary: boundary,
                                  asOf: asOf)
            results.append(RegressionSeriesResult(category: plan.category, outcome: plan.outcome, decision: decision,
                                                  baselineVersions: pooledVersions))
        }
        return .comparison(RegressionComparison(candidateVersion: candidate, baselineVersions: baselines, asOf: asOf,
                                                seriesInFamily: family, alphaPerSeries: alpha,
                                                candidateManifestMissing: candidateManifest == nil, results: results))
    }

    /// One series' candidate and baseline totals per UTC day, over the cells (hour × platform ×
    /// segment) in which both delivered, from the rows of hours before `asOf`: what the report
    /// charts beside a finding. `baselineVersions` are the versions pooled (the finding's).
    public static func days(rows: [RegressionRow], category: String, outcome: RegressionOutcome, candidate: String,
                            baselineVersions: [String], asOf: Int64) -> [RegressionDay] {
        days(table: RegressionTable(rows: rows, before: asOf), category: category, outcome: outcome, candidate: candidate,
             baselineVersions: baselineVersions)
    }

    static func days(table: RegressionTable, category: String, outcome: RegressionOutcome, candidate: String,
                     baselineVersions: [String]) -> [RegressionDay] {
        guard let entries = table.categories[category], let candidateIndex = table.versionIndex[candidate] else { return [] }
        let baseline = Set(baselineVersions)
        var byDay: [RegressionDay] = []
        entries.forEachCell(column: entries.column(of: outcome), candidate: candidateIndex,
                            eligible: table.versions.map { baseline.contains($0) }) { hour, _, cell in
            guard cell.n1 > 0, cell.n2 > 0 else { return }
            let day = RollupDeltas.floor(hour, RollupDeltas.microsecondsPerDay)
            if byDay.last?.day != day {
                byDay.append(RegressionDay(day: day, candidate: RegressionSide(delivered: 0, count: 0),
                                           baseline: RegressionSide(delivered: 0, count: 0)))
            }
            byDay[byDay.count - 1].candidate.delivered += cell.n1
            byDay[byDay.count - 1].candidate.count += cell.x1
            byDay[byDay.count - 1].baseline.delivered += cell.n2
            byDay[byDay.count - 1].baseline.count += cell.x2
        }
        return byDay
    }

    /// Version order: numbers compared as numbers ("1.10" after "1.9"), the usual
    /// CFBundleShortVersionString. Not the first delivery seen: a version that delivers little
    /// (the stragglers of an old release) may first appear in the rows after the newest one.
    public static func newer(_ a: String, _ b: String) -> Bool {
        switch a.compare(b, options: .numeric) {
        case .orderedDescending: true
        case .orderedAscending: false
        case .orderedSame: a.utf8.lexicographicallyPrecedes(b.utf8) // "1.0" and "1.00": any fixed order
        }
    }

    // MARK: - Which series, against which versions

    struct SeriesPlan {
        var category: String
        var outcome: RegressionOutcome
        /// Baseline versions that have the outcome.
        var eligible: Set<String>
        var exemption: RegressionExemption?
    }

    /// The outcomes a category's manifest entry makes measurable: opens always, each registered
    /// action, text replies with a text-input action, dismissals under customDismissAction.
    static func outcomes(of category: ManifestCategory?) -> [RegressionOutcome] {
        var outcomes: [RegressionOutcome] = [.opens]
        guard let category else { return outcomes }
        outcomes += category.actions.map { .action($0.identifier) }
        if category.actions.contains(where: \.textInput) { outcomes.append(.textReplies) }
        if category.hasCustomDismissAction { outcomes.append(.dismissals) }
        return outcomes
    }

    static func plan(category: String, candidateManifest: Manifest?, baselines: [String], manifests: [String: Manifest],
                     delivering: Set<String>, candidate: String) -> [SeriesPlan] {
        let registeredBy: [(version: String, entry: ManifestCategory)] = baselines.compactMap { version in
            manifests[version]?.category(category).map { (version, $0) }
        }
        let candidateEntry = candidateManifest?.category(category)
        let candidateDelivers = delivering.contains(candidate)
        // Registered by earlier versions, gone from the candidate's manifest and never delivered by it.
        if candidateManifest != nil, candidateEntry == nil, !candidateDelivers {
            guard !registeredBy.isEmpty else { return [] }
            return [SeriesPlan(category: category, outcome: .opens, eligible: [],
                               exemption: .removedFromManifest(versions: registeredBy.map(\.version)))]
        }
        let own = outcomes(of: candidateEntry)
        let knownBefore = !registeredBy.isEmpty || baselines.contains(where: delivering.contains)
        if !knownBefore {
            return own.map { SeriesPlan(category: category, outcome: $0, eligible: [], exemption: .newCategory) }
        }
        var plans: [SeriesPlan] = own.map { outcome in
            let eligible: Set<String>
            if outcome == .opens {
                eligible = Set(baselines)
            } else {
                eligible = Set(registeredBy.filter { outcomes(of: $0.entry).contains(outcome) }.map(\.version))
            }
            return SeriesPlan(category: category, outcome: outcome, eligible: eligible, exemption: eligible.isEmpty ? .newOutcome : nil)
        }
        if candidateManifest != nil {
            var removed: [RegressionOutcome: [String]] = [:]
            for (version, entry) in registeredBy {
                for outcome in outcomes(of: entry) where !own.contains(outcome) { removed[outcome, default: []].append(version) }
            }
            plans += removed.keys.sorted().map {
                SeriesPlan(category: category, outcome: $0, eligible: [], exemption: .removedFromManifest(versions: removed[$0]!))
            }
        }
        return plans.sorted { $0.outcome < $1.outcome }
    }

    // MARK: - The looks of one series

    func decide(_ plan: SeriesPlan, table: RegressionTable, candidate: String, pooledVersions: [String],
                boundary: NormalMixtureBoundary, asOf: Int64) -> RegressionDecision {
        guard let category = table.categories[plan.category], let candidateIndex = table.versionIndex[candidate] else {
            return .notEnoughData(.noCandidateDeliveries, candidateDelivered: 0, baselineDelivered: 0)
        }
        let eligible = table.versions.map { plan.eligible.contains($0) }
        // Both sides per (hour, platform, segment), in that order; only cells where both delivered are used.
        var used: [(hour: Int64, stratum: Int, counts: StratumCounts)] = []
        var candidateDelivered = 0, baselineDelivered = 0
        let strataPerPlatform = table.segments.count
        category.forEachCell(column: category.column(of: plan.outcome), candidate: candidateIndex, eligible: eligible) { hour, stratum, cell in
            candidateDelivered += cell.n1
            baselineDelivered += cell.n2
            if cell.n1 > 0, cell.n2 > 0 {
                used.append((hour, stratum.platform * strataPerPlatform + stratum.segment, cell))
            }
        }
        guard !used.isEmpty else {
            // Deliveries over all hours here: none of them is shared.
            return .notEnoughData(candidateDelivered > 0 ? .noSharedHours : .noCandidateDeliveries,
                                  candidateDelivered: candidateDelivered, baselineDelivered: baselineDelivered)
        }

        var sequence = SequentialMantelHaenszel()
        var day = Int64.min
        // Evidence is built for two looks only: the first crossing and the latest.
        var first: RegressionEvidence?
        var latest: (snapshot: SequentialMantelHaenszel.Snapshot, lookAt: Int64)?
        var shortfall: RegressionShortfall?
        var index = 0
        while index < used.count {
            let hour = used[index].hour
            let hourDay = RollupDeltas.floor(hour, RollupDeltas.microsecondsPerDay)
            if hourDay != day {
                sequence.closeOpenStrata() // a stratum is platform × segment × UTC day
                day = hourDay
            }
            while index < used.count, used[index].hour == hour {
                sequence.add(used[index].counts, to: used[index].stratum)
                index += 1
            }
            let snapshot = sequence.current
            if let missing = insufficiency(snapshot.pooled) {
                shortfall = missing
                latest = nil
                continue
            }
            guard let look = snapshot.interval(boundary: boundary) else { continue }
            let lookAt = min(hour + RollupDeltas.microsecondsPerHour, asOf)
            shortfall = nil
            latest = (snapshot, lookAt)
            // As `RegressionEvidence.crossesMinimumDrop`, without building the evidence.
            if first == nil, look.anytimeValid.upper < -configuration.minimumRelativeDrop * Self.referenceRate(snapshot) {
                first = Self.evidence(snapshot, boundary: boundary, relativeDrop: configuration.minimumRelativeDrop, lookAt: lookAt)
            }
        }
        let latestEvidence = latest.flatMap {
            Self.evidence($0.snapshot, boundary: boundary, relativeDrop: configuration.minimumRelativeDrop, lookAt: $0.lookAt)
        }
        if let first {
            let finding = RegressionFinding(category: plan.category, outcome: plan.outcome, candidateVersion: candidate,
                                            baselineVersion: pooledVersions.first ?? "", baselineVersions: pooledVersions,
                                            detectedAt: first.lookAt, atDetection: first, latest: latestEvidence ?? first)
            return .flagged(finding)
        }
        if let latestEvidence, shortfall == nil { return .fine(latestEvidence) }
        let pooled = sequence.current.pooled
        return .notEnoughData(shortfall ?? .noSharedHours, candidateDelivered: pooled.n1, baselineDelivered: pooled.n2)
    }

    /// Nil when a look may count: enough deliveries on each side, and Cochran's rule (each side
    /// expects at least `expectedCount` responses and non-responses under the pooled rate).
    func insufficiency(_ pooled: StratumCounts) -> RegressionShortfall? {
        let minimum = configuration.minimumSample
        if pooled.n1 < minimum.perSide || pooled.n2 < minimum.perSide {
            return .belowMinimumDeliveries(candidate: pooled.n1, baseline: pooled.n2, required: minimum.perSide)
        }
        let rate = Double(pooled.x1 + pooled.x2) / Double(pooled.n1 + pooled.n2)
        let expected = Double(min(pooled.n1, pooled.n2)) * min(rate, 1 - rate)
        if expected < minimum.expectedCount { return .expectedCountBelowMinimum(expected: expected, required: minimum.expectedCount) }
        return nil
    }

    /// The baseline's rate standardised to the strata's weights: what the minimum drop is a share of.
    static func referenceRate(_ snapshot: SequentialMantelHaenszel.Snapshot) -> Double {
        snapshot.sums.secondGroupWeighted / snapshot.sums.weights
    }

    static func evidence(_ snapshot: SequentialMantelHaenszel.Snapshot, boundary: NormalMixtureBoundary, relativeDrop: Double,
                         lookAt: Int64) -> RegressionEvidence? {
        guard let estimate = snapshot.estimate(boundary: boundary) else { return nil }
        let reference = referenceRate(snapshot)
        let pooled = estimate.pooled
        return RegressionEvidence(lookAt: lookAt, difference: estimate.difference, anytimeValid: estimate.anytimeValid,
                                  fixedHorizon95: estimate.fixedHorizon95, variance: estimate.variance,
                                  pooledDifference: estimate.pooledDifference,
                                  candidate: RegressionSide(delivered: pooled.n1, count: pooled.x1),
                                  baseline: RegressionSide(delivered: pooled.n2, count: pooled.x2),
                                  referenceRate: reference, minimumDrop: relativeDrop * reference,
                                  effectiveDeliveries: estimate.effectiveTrials, strata: estimate.mantelHaenszel.strata,
                                  notMeaningfulDeliveries: snapshot.notMeaningfulTrials)
    }

}
