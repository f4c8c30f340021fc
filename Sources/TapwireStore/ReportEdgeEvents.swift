import TapwireCore

/// A piece of a report's range that hourly rollups cannot answer (sql/queries/report_edge_ranges.sql):
/// an hour cut by a range edge or a local midnight, split at quarter hours, inside one local day.
struct ReportEdgeRange: Sendable, Hashable {
    /// [lo, hi), µs since 1970.
    var lo: Int64
    var hi: Int64
    /// Whole quarter hours where the quarter-hour grain is complete: read from grain 5.
    /// Otherwise the range's events are read through `RollupDeltas` (`ReportEdgeEvents`).
    var fromQuarters: Bool
    /// The local day (YYYY-MM-DD) the range lies in.
    var day: String
}

/// The report's edge minutes (an edge off the quarter hour, or quarter hours before the
/// quarter-hour grain is complete): their events are streamed back as a rebuild streams a day
/// (binary `COPY … TO STDOUT`, one for all the ranges) and aggregated by `RollupDeltas`, the one definition of every
/// aggregate, then turned into report rows. sql/queries/report_raw_*.sql compute the same
/// numbers in SQL, but only for the raw-events report, the oracle.
struct ReportEdgeEvents {
    let scope: ReportScope

    /// The finest rows (grain 5, every dimension) of the app's events in the ranges, read with
    /// one COPY however many ranges there are.
    static func deltas(appId: Int64, ranges: [ReportEdgeRange], on connection: PostgresConnection) throws(DatabaseError) -> RollupDeltas {
        var reader = EventRowReader()
        try connection.copyOut(built: EmbeddedSQL.reportEdgeEvents, [String(appId), PostgresValue.timestampArray(ranges.map(\.lo)),
                                                                     PostgresValue.timestampArray(ranges.map(\.hi))]) { (piece) throws(DatabaseError) in
            try reader.consume(piece)
        }
        return try reader.finishFinest()
    }

    /// Whether a row with these dimensions passes the scope's filters (a missing campaign or
    /// variant is '', as in the rollups).
    private func passes(_ d: RollupDeltas.Dimensions) -> Bool {
        let f = scope.filters
        return (f.appVersion == nil || f.appVersion == d.appVersion) && (f.platform == nil || f.platform == d.platform)
            && (f.campaign == nil || f.campaign == d.campaign) && (f.variant == nil || f.variant == d.variant)
    }

    private func group(_ d: RollupDeltas.Dimensions) -> String {
        switch scope.groupBy {
        case .appVersion: return d.appVersion
        case .platform: return d.platform
        case .campaign: return d.campaign
        case .variant: return d.variant
        case nil: return ""
        }
    }

    private struct CountKey: Hashable {
        var group: String, appVersion: String, day: String, category: String, hasMedia: Bool
    }

    /// Count rows by local day: a quarter hour's day is that of the range it overlaps (ranges
    /// are cut at quarter hours, except at the report's own edges, where only one range reaches
    /// into the quarter).
    func counts(_ deltas: RollupDeltas, ranges: [ReportEdgeRange]) -> [ReportCountRow] {
        var sums: [CountKey: RollupDeltas.Counts] = [:]
        for (key, c) in deltas.counts where key.dimensions.grain == RollupDeltas.Grain.quarter && passes(key.dimensions) {
            let d = key.dimensions
            let q = d.bucket
            guard let range = ranges.first(where: { $0.lo < q + RollupDeltas.microsecondsPerQuarterHour && q < $0.hi }) else { continue }
            sums[CountKey(group: group(d), appVersion: d.appVersion, day: range.day, category: d.category, hasMedia: key.hasMedia),
                 default: RollupDeltas.Counts()].add(c)
        }
        return sums.map { key, c in
            ReportCountRow(group: key.group, appVersion: key.appVersion, day: key.day, category: key.category, hasMedia: key.hasMedia,
                           delivered: Int(c.delivered), sent: Int(c.sent), mediaRequested: Int(c.mediaRequested), opens: Int(c.opens),
                           dismissals: Int(c.dismissals), actions: Int(c.actions), replies: Int(c.replies))
        }
    }

    private struct ActionKey: Hashable {
        var group: String, category: String, action: String
    }

    func actions(_ deltas: RollupDeltas) -> [ReportActionRow] {
        var sums: [ActionKey: Int64] = [:]
        for (key, n) in deltas.actions where key.dimensions.grain == RollupDeltas.Grain.quarter && passes(key.dimensions) {
            sums[ActionKey(group: group(key.dimensions), category: key.dimensions.category, action: key.action), default: 0] += n
        }
        return sums.map { ReportActionRow(group: $0.group, category: $0.category, action: $0.action, count: Int($1)) }
    }

    private struct BinKey: Hashable {
        var group: String, category: String, metric: HistogramMetric, bin: Int16
    }

    func histograms(_ deltas: RollupDeltas) -> [ReportHistogramRow] {
        var sums: [BinKey: Int64] = [:]
        for (key, n) in deltas.histograms where key.dimensions.grain == RollupDeltas.Grain.quarter && passes(key.dimensions) {
            sums[BinKey(group: group(key.dimensions), category: key.dimensions.category, metric: key.metric, bin: key.bin), default: 0] += n
        }
        return sums.map { ReportHistogramRow(group: $0.group, category: $0.category, metric: $0.metric, bin: Int($0.bin), count: Int($1)) }
    }

    private struct StratumKey: Hashable {
        var group: String, utcDay: Int64, category: String, appVersion: String, platform: String, campaign: String, hasMedia: Bool
    }

    func strata(_ deltas: RollupDeltas) -> [ReportStratumRow] {
        var sums: [StratumKey: RollupDeltas.Counts] = [:]
        for (key, c) in deltas.counts where key.dimensions.grain == RollupDeltas.Grain.quarter && passes(key.dimensions) {
            let d = key.dimensions
            let day = RollupDeltas.floor(d.bucket, RollupDeltas.microsecondsPerDay) / RollupDeltas.microsecondsPerDay
            sums[StratumKey(group: group(d), utcDay: day, category: d.category, appVersion: d.appVersion, platform: d.platform,
                            campaign: d.campaign, hasMedia: key.hasMedia), default: RollupDeltas.Counts()].add(c)
        }
        return sums.map { key, c in
            ReportStratumRow(group: key.group, utcDay: Int(key.utcDay), category: key.category, appVersion: key.appVersion,
                             platform: key.platform, campaign: key.campaign, hasMedia: key.hasMedia, delivered: Int(c.delivered),
                             opens: Int(c.opens), actions: Int(c.actions))
        }
    }
}
