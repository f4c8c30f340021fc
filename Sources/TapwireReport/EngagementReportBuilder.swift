import TapwireCore
import TapwireStatistics
import TapwireStore

/// Turns the rows of one scope into the report model. Pure, so every rule is unit-testable.
public struct EngagementReportBuilder: Sendable {
    public var minimumSample: MinimumSample
    /// A fraction; nil picks one per category (UpliftDetection).
    public var targetDifference: Double?

    /// What the adjusted difference is stratified by, as the reasons name it.
    static let strataDimensions = "campaign × platform × UTC day"

    public init(minimumSample: MinimumSample = .default, targetDifference: Double? = nil) {
        self.minimumSample = minimumSample
        self.targetDifference = targetDifference
    }

    /// `manifests`: the manifest in force per app version (ManifestStore.currentManifests).
    public func build(app: String, scope: ReportScope, data: ReportData, manifests: [String: Manifest],
                      generatedAt: Timestamp) -> EngagementReport {
        // The current volume is the range's: deliveries per day over its length.
        let rangeDays = Double(scope.to.microseconds - scope.from.microseconds) / 86_400_000_000
        var groups: [ReportGroup] = []
        // Groups, categories, actions and names are keyed by their bytes, as SQL groups them and
        // the device tells them apart (docs/reports.md, "Texts compared by their bytes").
        var sections: [Bytewise<String>: Section] = [:]
        for row in data.totals { sections[Bytewise(row.group), default: Section()].totals.append(row) }
        for row in data.trend { sections[Bytewise(row.group), default: Section()].trend.append(row) }
        for row in data.dismiss { sections[Bytewise(row.group), default: Section()].dismiss.append(row) }
        for row in data.actions { sections[Bytewise(row.group), default: Section()].actions.append(row) }
        for row in data.histograms { sections[Bytewise(row.group), default: Section()].histograms.append(row) }
        for row in data.uplift where !row.wholeReport { sections[Bytewise(row.group), default: Section()].uplift.append(row) }
        for row in data.conversions { sections[Bytewise(row.group), default: Section()].conversions.append(row) }
        for row in data.conversionActions { sections[Bytewise(row.group), default: Section()].conversionActions.append(row) }
        for row in data.conversionUplift { sections[Bytewise(row.row.group), default: Section()].conversionUplift.append(row) }
        let wholeUplift = data.uplift.filter(\.wholeReport)
        let valuePools = Self.valuePools(data)
        // The report as a whole: every group's rows, and the strata's sums over all of them.
        var everything = Section()
        for value in sections.keys.sorted() {
            let part = sections[value]!
            everything.append(part)
            guard let dimension = scope.groupBy, !part.totals.isEmpty || !part.actions.isEmpty else { continue }
            let (groupCategories, groupOverall) = build(part, days: data.days, rangeDays: rangeDays, manifests: manifests,
                                                        valuePools: valuePools)
            groups.append(ReportGroup(dimension: dimension, value: value.wrappedValue, categories: groupCategories, overall: groupOverall))
        }
        everything.uplift = wholeUplift
        let (categories, overall) = build(everything, days: data.days, rangeDays: rangeDays, manifests: manifests,
                                          valuePools: valuePools)
        var report = EngagementReport(app: app, from: scope.from, to: scope.to, timeZone: scope.timeZone, filters: scope.filters,
                                      groupBy: scope.groupBy, source: scope.source, generatedAt: generatedAt,
                                      minimumSample: minimumSample, targetDifference: targetDifference, days: data.days,
                                      categories: categories, overall: overall, groups: groups)
        report.holdouts = data.holdouts.map { HoldoutEffect($0, minimum: minimumSample) }
        report.holdoutsCombined = HoldoutCombined(report.holdouts)
        report.conversions = ConversionTotal.totals(data.conversionTotals)
        report.attribution = data.attribution
        report.conversionsOmitted = data.conversionsOmitted
        return report
    }

    /// The rows of one `--by` value (or of the whole report).
    struct Section {
        var totals: [ReportTotalsRow] = []
        var trend: [ReportTrendRow] = []
        var dismiss: [ReportDismissRow] = []
        var actions: [ReportActionRow] = []
        var histograms: [ReportHistogramRow] = []
        var uplift: [ReportUpliftDayRow] = []
        var conversions: [ReportConversionRow] = []
        var conversionActions: [ReportConversionActionRow] = []
        var conversionUplift: [ReportConversionUpliftDayRow] = []

        mutating func append(_ other: Section) {
            totals += other.totals
            trend += other.trend
            dismiss += other.dismiss
            actions += other.actions
            histograms += other.histograms
            uplift += other.uplift
            conversions += other.conversions
            conversionActions += other.conversionActions
            conversionUplift += other.conversionUplift
        }
    }

    /// A local day's delivered and engaged on the daily line, added row by row.
    struct DaySum {
        var delivered = 0
        var engaged = 0

        mutating func add(delivered: Int, engaged: Int) {
            self.delivered += delivered
            self.engaged += engaged
        }
    }

    /// One side of one category's part of a day the range cuts: its delivered and its successes
    /// (engaged, or converted notifications). Several may share a key: they are added.
    struct CutCell {
        var category: Bytewise<String>
        var utcDay: Int
        var hasMedia: Bool
        var delivered: Int
        var successes: Int
    }

    /// Each category's sums per UTC day (whole days from their rows; a cut day's part as one
    /// stratum, from its cells), in order of the day: what `RichUplift` reads, for engagement and
    /// for each conversion name alike.
    static func upliftDays(whole rows: [ReportUpliftDayRow], cut: [CutCell]) -> [Bytewise<String>: [(utcDay: Int, sums: UpliftDay)]] {
        var whole: [Bytewise<String>: [Int: UpliftDay]] = [:]
        // Several rows of one category and day are groups of one report (conversions by campaign
        // or platform, whose groups never split a stratum): they add up.
        for row in rows {
            let category = Bytewise(row.category)
            whole[category, default: [:]][row.utcDay] = whole[category]?[row.utcDay].map { $0 + row.day } ?? row.day
        }
        struct CutKey: Hashable { var category: Bytewise<String>; var day: Int }
        var cells: [CutKey: (rich: (delivered: Int, engaged: Int), text: (delivered: Int, engaged: Int))] = [:]
        for c in cut {
            var cell = cells[CutKey(category: c.category, day: c.utcDay)] ?? ((0, 0), (0, 0))
            if c.hasMedia {
                cell.rich = (cell.rich.delivered + c.delivered, cell.rich.engaged + c.successes)
            } else {
                cell.text = (cell.text.delivered + c.delivered, cell.text.engaged + c.successes)
            }
            cells[CutKey(category: c.category, day: c.utcDay)] = cell
        }
        for (key, cell) in cells {
            var day = UpliftDay()
            day.add(rich: cell.rich, textOnly: cell.text)
            whole[key.category, default: [:]][key.day] = day
        }
        return whole.mapValues { days in days.keys.sorted().map { ($0, days[$0]!) } }
    }

    /// The cut days' cells of engagement: delivered and engaged from the totals.
    static func engagementCutCells(_ totals: [ReportTotalsRow]) -> [CutCell] {
        totals.compactMap { row in
            row.cutDay.map { day in
                CutCell(category: Bytewise(row.category), utcDay: day, hasMedia: row.hasMedia, delivered: Int(row.counts.delivered),
                        successes: Int(RollupDeltas.engaged(opens: row.counts.opens, actions: row.counts.actions)))
            }
        }
    }

    /// Every category's days added into one sequence, the categories in name order so the sums
    /// never depend on hashing: the overall's strata (× category).
    static func overallDays(_ byCategory: [Bytewise<String>: [(utcDay: Int, sums: UpliftDay)]]) -> [(day: String, sums: UpliftDay)] {
        var overallDays: [Int: UpliftDay] = [:]
        for name in byCategory.keys.sorted() {
            for (day, sums) in byCategory[name] ?? [] { overallDays[day] = overallDays[day].map { $0 + sums } ?? sums }
        }
        return overallDays.keys.sorted().map { (label($0), overallDays[$0]!) }
    }

    /// The members' daily line as one row per day (the overall reads only each day's sums): the
    /// same integers `engagement` would add, without copying a real app's 900 rows first.
    static func overallTrend(_ members: Set<Bytewise<String>>, _ byCategory: [Bytewise<String>: [ReportTrendRow]]) -> [ReportTrendRow] {
        var daily: [String: DaySum] = [:]
        for name in members {
            for row in byCategory[name] ?? [] { daily[row.day, default: DaySum()].add(delivered: row.delivered, engaged: row.engaged) }
        }
        return daily.map { ReportTrendRow(category: "", day: $0.key, delivered: $0.value.delivered, engaged: $0.value.engaged) }
    }

    /// The members' bins as one row per metric and bin (the overall reads only their sums).
    static func overallBins(_ members: Set<Bytewise<String>>, _ byCategory: [Bytewise<String>: [ReportHistogramRow]]) -> [ReportHistogramRow] {
        struct Key: Hashable { var metric: HistogramMetric, bin: Int }
        var sums: [Key: Int] = [:]
        for name in members {
            for row in byCategory[name] ?? [] { sums[Key(metric: row.metric, bin: row.bin), default: 0] += row.count }
        }
        return sums.map { ReportHistogramRow(category: "", metric: $0.key.metric, bin: $0.key.bin, count: $0.value) }
    }

    static func label(_ utcDay: Int) -> String {
        String(Timestamp.startOfUTCDay(Int64(utcDay)).iso8601(fractionDigits: 0).prefix(10))
    }

    func build(_ section: Section, days: [String], rangeDays: Double, manifests: [String: Manifest],
               valuePools: [Outcome: SkewAdjustedMean.Moments]) -> ([CategoryEngagement], CategoryEngagement) {
        let names = Set(section.totals.map { Bytewise($0.category) }).union(section.actions.map { Bytewise($0.category) })
        let totalsByCategory = Dictionary(grouping: section.totals) { Bytewise($0.category) }
        let trendByCategory = Dictionary(grouping: section.trend) { Bytewise($0.category) }
        let dismissByCategory = Dictionary(grouping: section.dismiss) { Bytewise($0.category) }
        let actionsByCategory = Dictionary(grouping: section.actions) { Bytewise($0.category) }
        let histogramsByCategory = Dictionary(grouping: section.histograms) { Bytewise($0.category) }
        let upliftByCategory = Self.upliftDays(whole: section.uplift, cut: Self.engagementCutCells(section.totals))
        // Each day's label once, not once per category (a real app's 30 categories × 30 days).
        var labels: [Int: String] = [:]
        for look in upliftByCategory.values.joined() where labels[look.utcDay] == nil { labels[look.utcDay] = Self.label(look.utcDay) }
        func looks(_ category: Bytewise<String>) -> [(day: String, sums: UpliftDay)] {
            (upliftByCategory[category] ?? []).map { (labels[$0.utcDay] ?? Self.label($0.utcDay), $0.sums) }
        }
        // Every category's title in one pass over the manifests, not a search of each version's
        // categories per category (a real app's 40 manifests × 30 categories, squared).
        let titles = Self.titles(manifests)
        var categories: [CategoryEngagement] = names.map { name in
            engagement(category: name.wrappedValue, title: titles[name], totals: totalsByCategory[name] ?? [],
                       trend: trendByCategory[name] ?? [], actions: actionsByCategory[name] ?? [],
                       histograms: histogramsByCategory[name] ?? [], uplift: looks(name), days: days, rangeDays: rangeDays,
                       dismiss: dismissStats(category: name.wrappedValue, rows: dismissByCategory[name] ?? [], manifests: manifests))
        }
        categories.sort { ($0.baseCount, Bytewise($1.displayName)) > ($1.baseCount, Bytewise($0.displayName)) }

        // The overall's members: the categories whose rates are over the overall's base and meaningful.
        let base: EngagementBase = categories.contains { $0.delivered > 0 } ? .delivered : .sent
        var excluded: [OverallExclusion] = []
        var members: Set<Bytewise<String>> = []
        for c in categories {
            guard let name = c.category else { continue }
            let reason: OverallExclusion.Reason?
            if c.baseCount == 0 {
                reason = c.sent > 0 ? .sentBase : .noBase
            } else if c.base != base {
                reason = .sentBase
            } else if c.engagementNotMeaningful != nil {
                reason = .engagementNotMeaningful
            } else {
                reason = nil
            }
            if let reason {
                excluded.append(OverallExclusion(category: name, reason: reason, delivered: c.delivered, sent: c.sent, engaged: c.engaged))
            } else {
                members.insert(Bytewise(name))
            }
        }
        // Dismissals over the members whose dismiss rate is itself measurable and meaningful.
        let measured = categories.filter { $0.category.map { members.contains(Bytewise($0)) } == true && $0.dismiss.rate != nil }
        let overallDismiss: DismissStats
        if measured.isEmpty {
            overallDismiss = .notMeasurable
        } else {
            let count = measured.reduce(0) { $0 + ($1.dismiss.count ?? 0) }
            let base = measured.reduce(0) { $0 + ($1.dismiss.base ?? 0) }
            overallDismiss = DismissStats(measurable: true, count: count, rate: ProportionStatistics.share(count, of: base), base: base)
        }
        // Rich vs text-only takes the used cells of every category: a category without
        // deliveries has none, and an odd cell leaves out only itself.
        var overall = engagement(category: nil, title: nil, totals: section.totals.filter { members.contains(Bytewise($0.category)) },
                                 trend: Self.overallTrend(members, trendByCategory),
                                 actions: section.actions.filter { members.contains(Bytewise($0.category)) },
                                 histograms: Self.overallBins(members, histogramsByCategory),
                                 uplift: Self.overallDays(upliftByCategory.filter { names.contains($0.key) }), days: days,
                                 rangeDays: rangeDays, dismiss: overallDismiss)
        overall.excludedCategories = excluded.sorted { Bytewise($0.category) < Bytewise($1.category) }
        addConversions(section, to: &categories, overall: &overall, members: members, rangeDays: rangeDays, valuePools: valuePools)
        return (categories, overall)
    }

    /// Each category's conversions over its delivered, the direct ones by action, and rich vs
    /// text-only on each name (the engagement comparison's code, converted for engaged); the
    /// overall's over its members' delivered, its comparison over every category's strata, as
    /// engagement's (docs/reports.md, "Conversions").
    /// `rows` in the order `less` says. The query sends a category's days in that order already
    /// (report_conversion_uplift.sql's ORDER BY), so a pass that finds them in order spares the
    /// sort of thousands of wide rows; rows in another order (a collation that disagrees) are sorted.
    static func inOrder<Row>(_ rows: [Row], by less: (Row, Row) -> Bool) -> [Row] {
        for i in rows.indices.dropFirst() where less(rows[i], rows[i - 1]) {
            return rows.sorted(by: less)
        }
        return rows
    }

    /// A conversion name with its currency: what each conversions list has an entry per.
    struct Outcome: Hashable, Comparable {
        @Bytewise var name: String
        @Bytewise var currency: String
        static func < (a: Outcome, b: Outcome) -> Bool { (a._name, a._currency) < (b._name, b._currency) }
    }

    /// Conversion rows in one order whatever order the database sent them in, so sums of doubles
    /// (values, the strata's sums over groups) come out the same from the rollups and from the events.
    static func inConversionOrder(_ rows: [ReportConversionRow]) -> [ReportConversionRow] {
        rows.sorted {
            (Bytewise($0.group), Bytewise($0.category), Bytewise($0.name), Bytewise($0.currency), $0.hasMedia ? 1 : 0, $0.cutDay ?? -1)
                < (Bytewise($1.group), Bytewise($1.category), Bytewise($1.name), Bytewise($1.currency), $1.hasMedia ? 1 : 0, $1.cutDay ?? -1)
        }
    }

    /// Each name's and currency's values over every delivered notification of the report (every
    /// category and group): the larger sample whose skewness the value intervals' rule reads with
    /// each cell's own (`ConversionValueInterval`, docs/statistics-outcomes.md "When the interval is shown").
    static func valuePools(_ data: ReportData) -> [Outcome: SkewAdjustedMean.Moments] {
        let delivered = data.totals.reduce(0) { $0 + Int($1.counts.delivered) }
        return Dictionary(grouping: inConversionOrder(data.conversions)) { Outcome(name: $0.name, currency: $0.currency) }
            .compactMapValues { CategoryConversion.valueMoments($0, delivered: delivered) }
    }

    func addConversions(_ section: Section, to categories: inout [CategoryEngagement], overall: inout CategoryEngagement,
                        members: Set<Bytewise<String>>, rangeDays: Double, valuePools: [Outcome: SkewAdjustedMean.Moments]) {
        guard !section.conversions.isEmpty || !section.conversionActions.isEmpty else { return }
        let conversionRows = Self.inConversionOrder(section.conversions)
        let upliftRows = Self.inOrder(section.conversionUplift) {
            ($0.row.group, $0.row.category, $0.name, $0.currency, $0.row.utcDay) < ($1.row.group, $1.row.category, $1.name, $1.currency, $1.row.utcDay)
        }
        let rowsByOutcome = Dictionary(grouping: conversionRows) { Outcome(name: $0.name, currency: $0.currency) }
        let upliftRowsByOutcome = Dictionary(grouping: upliftRows) { Outcome(name: $0.name, currency: $0.currency) }
        let totalsCut = Self.engagementCutCells(section.totals).map { cell in
            CutCell(category: cell.category, utcDay: cell.utcDay, hasMedia: cell.hasMedia, delivered: cell.delivered, successes: 0)
        }
        // Each name's days per category, over every category's strata.
        var days: [Outcome: [Bytewise<String>: [(utcDay: Int, sums: UpliftDay)]]] = [:]
        for outcome in rowsByOutcome.keys {
            let cut = totalsCut + (rowsByOutcome[outcome] ?? []).compactMap { row in
                row.cutDay.map { CutCell(category: Bytewise(row.category), utcDay: $0, hasMedia: row.hasMedia, delivered: 0, successes: row.converted) }
            }
            days[outcome] = Self.upliftDays(whole: (upliftRowsByOutcome[outcome] ?? []).map(\.row), cut: cut)
        }
        func uplift(_ outcome: Outcome, _ looks: [(day: String, sums: UpliftDay)], dimensions: String) -> ConversionUplift {
            ConversionUplift(name: outcome.name, currency: outcome.currency,
                             uplift: RichUplift(days: looks, dimensions: dimensions, minimum: minimumSample, target: nil,
                                                rangeDays: rangeDays))
        }
        func byAction(_ rows: [ReportConversionActionRow]) -> [Bytewise<String>: [Bytewise<String>: Int]] {
            var out: [Bytewise<String>: [Bytewise<String>: Int]] = [:]
            for row in rows { out[Bytewise(row.action), default: [:]][Bytewise(row.name), default: 0] += row.direct }
            return out
        }
        let actionsByCategory = Dictionary(grouping: section.conversionActions) { Bytewise($0.category) }
        // Each day's label once, not once per category and name.
        var labels: [Int: String] = [:]
        for look in days.values.flatMap(\.values).joined() where labels[look.utcDay] == nil {
            labels[look.utcDay] = Self.label(look.utcDay)
        }
        for i in categories.indices {
            guard let name = categories[i].category.map({ Bytewise($0) }) else { continue }
            let rows = conversionRows.filter { Bytewise($0.category) == name }
            let outcomes = Set(rows.map { Outcome(name: $0.name, currency: $0.currency) }).sorted()
            categories[i].conversions = outcomes.map { outcome in
                CategoryConversion(name: outcome.name, currency: outcome.currency,
                                   rows: rows.filter { Outcome(name: $0.name, currency: $0.currency) == outcome },
                                   delivered: categories[i].delivered, valuePool: valuePools[outcome])
            }
            categories[i].directConversionsByAction = byAction(actionsByCategory[name] ?? [])
            categories[i].conversionUplift = outcomes.map { outcome in
                uplift(outcome, (days[outcome]?[name] ?? []).map { (labels[$0.utcDay] ?? Self.label($0.utcDay), $0.sums) },
                       dimensions: Self.strataDimensions)
            }
        }
        let memberRows = conversionRows.filter { members.contains(Bytewise($0.category)) }
        overall.conversions = Set(memberRows.map { Outcome(name: $0.name, currency: $0.currency) }).sorted().map { outcome in
            CategoryConversion(name: outcome.name, currency: outcome.currency,
                               rows: memberRows.filter { Outcome(name: $0.name, currency: $0.currency) == outcome },
                               delivered: overall.delivered, valuePool: valuePools[outcome])
        }
        overall.directConversionsByAction = byAction(section.conversionActions.filter { members.contains(Bytewise($0.category)) })
        overall.conversionUplift = rowsByOutcome.keys.sorted().map { outcome in
            uplift(outcome, Self.overallDays(days[outcome] ?? [:]), dimensions: "category × " + Self.strataDimensions)
        }
    }

    func engagement(category: String?, title: String?, totals: [ReportTotalsRow], trend: [ReportTrendRow], actions: [ReportActionRow],
                    histograms: [ReportHistogramRow], uplift: [(day: String, sums: UpliftDay)], days: [String], rangeDays: Double,
                    dismiss: DismissStats) -> CategoryEngagement {
        var c = RollupDeltas.Counts(), notShown: Int64 = 0
        for row in totals {
            c.add(row.counts)
            if !row.hasMedia { notShown += row.counts.mediaRequested }
        }
        // One lookup per row, the table sized for the report's days: a real app's 30 categories
        // × 30 days looked each day up twice and grew each table as it went (docs/reports.md,
        // "Issue 33's ratio at 2M events").
        var daily: [String: DaySum] = [:]
        daily.reserveCapacity(days.count)
        for row in trend { daily[row.day, default: DaySum()].add(delivered: row.delivered, engaged: row.engaged) }
        let delivered = Int(c.delivered), sent = Int(c.sent), opens = Int(c.opens)
        let engaged = Int(RollupDeltas.engaged(opens: c.opens, actions: c.actions))
        let base: EngagementBase = delivered == 0 && sent > 0 ? .sent : .delivered
        let baseCount = base == .delivered ? delivered : sent
        let notMeaningful = engagementNotMeaningful(engaged: engaged, base: baseCount, baseName: base.rawValue)
        var perAction: [Bytewise<String>: Int] = [:]
        for row in actions { perAction[Bytewise(row.action), default: 0] += row.count }
        let actionList = perAction.map { ActionCount(identifier: $0.key.wrappedValue, count: $0.value,
                                                     rate: ProportionStatistics.share($0.value, of: baseCount)) }
            .sorted { ($0.count, Bytewise($1.identifier)) > ($1.count, Bytewise($0.identifier)) }
        var replyLengths = BinnedHistogram(), latencies = BinnedHistogram()
        for row in histograms {
            switch row.metric {
            case .replyLength: replyLengths.add(bin: row.bin, count: row.count)
            case .timeToResponse: latencies.add(bin: row.bin, count: row.count)
            }
        }
        return CategoryEngagement(
            category: category, title: title, delivered: delivered, sent: sent, opens: opens, actions: actionList,
            textReplies: TextReplies(count: Int(c.replies),
                                     p50Length: replyLengths.percentileBin(0.5).map { Int(ReplyLengthBins.value(ofBin: $0)) },
                                     p90Length: replyLengths.percentileBin(0.9).map { Int(ReplyLengthBins.value(ofBin: $0)) }),
            dismiss: dismiss, engaged: engaged, base: base,
            engagementRate: ProportionStatistics.share(engaged, of: baseCount),
            engagementCI95: notMeaningful == nil ? ProportionStatistics.wilson(successes: engaged, trials: baseCount) : nil,
            engagementNotMeaningful: notMeaningful,
            uplift: RichUplift(days: uplift, dimensions: category == nil ? "category × " + Self.strataDimensions : Self.strataDimensions,
                               minimum: minimumSample, target: targetDifference, rangeDays: rangeDays),
            media: MediaFailure(requested: Int(c.mediaRequested), notShown: Int(notShown)),
            timeToResponse: TimeToResponse(samples: latencies.total,
                                           p50Seconds: latencies.percentileBin(0.5).map(LatencyBins.value(ofBin:)),
                                           p90Seconds: latencies.percentileBin(0.9).map(LatencyBins.value(ofBin:))),
            daily: days.map { day in
                let sum = daily[day] ?? DaySum()
                return DailyPoint(date: day, delivered: sum.delivered, engaged: sum.engaged)
            })
    }

    /// Measurable for the app versions in scope whose manifest registers the category with
    /// customDismissAction; count and rate cover exactly those versions.
    func dismissStats(category: String, rows: [ReportDismissRow], manifests: [String: Manifest]) -> DismissStats {
        let measurableVersions = Set(rows.map { Bytewise($0.appVersion) }).filter {
            manifests[$0.wrappedValue]?.category(category)?.hasCustomDismissAction == true
        }
        guard !measurableVersions.isEmpty else { return .notMeasurable }
        let measured = rows.filter { measurableVersions.contains(Bytewise($0.appVersion)) }
        let count = measured.reduce(0) { $0 + $1.dismissals }
        let base = measured.reduce(0) { $0 + $1.delivered }
        return DismissStats(measurable: true, count: count, rate: ProportionStatistics.share(count, of: base), base: base)
    }

    /// Each category's title: that of the newest version (the last as `String` orders them) whose
    /// manifest gives the category one (`Manifest.category`, the first entry of its identifier).
    /// A category that already has its title (from a newer version) is skipped with one lookup,
    /// an entry without a title at once; only an entry with a title is checked against the
    /// version's earlier entries, by comparing identifiers. A real app's 40 manifests × 30
    /// categories, none with a title, otherwise built a set per version on every report
    /// (docs/reports.md, "Issue 33's ratio: the manifests' derived facts"; branch report6).
    static func titles(_ manifests: [String: Manifest]) -> [Bytewise<String>: String] {
        var titles: [Bytewise<String>: String] = [:]
        for version in manifests.keys.sorted(by: >) {
            let categories = manifests[version]!.categories
            for (i, category) in categories.enumerated() where titles[Bytewise(category.identifier)] == nil {
                // Only the version's first entry of an identifier counts, titled or not.
                guard let title = category.title,
                      !categories[..<i].contains(where: { String.sameBytes($0.identifier, category.identifier) }) else { continue }
                titles[Bytewise(category.identifier)] = title
            }
        }
        return titles
    }
}
