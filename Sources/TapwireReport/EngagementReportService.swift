import TapwireCore
import TapwireStatistics
import TapwireStore

extension EngagementReportService {
    /// The findings sections of a report: category mismatches over its range, and the
    /// release-regression check as of its end (or now, if that is earlier). A report whose end
    /// lies in the current hour or later shows the current look (looks are whole hours), stored
    /// by the collectors when it applies; one that ended before replays its end.
    public func findings(for report: EngagementReport, appId: Int64, regression: RegressionConfiguration = .default,
                         on connection: PostgresConnection) throws(DatabaseError) -> FindingsReport {
        let now = Timestamp.now
        let current = report.to.microseconds >= RegressionLookStore.looksEnd(now)
        return try FindingsService(FindingsConfiguration(regression: regression, fold: fold)).report(appId: appId, appName: report.app, since: report.from,
                                                                   asOf: min(report.to, now), look: current ? .current : .computed,
                                                                   on: connection)
    }
}

/// Makes an engagement report: resolves the range, reads the rollups and the manifests, builds
/// the model. Used by `tapwire report` and the HTTP endpoints alike.
public struct EngagementReportService: Sendable {
    public static let defaultDays = 30
    /// How its reads count every acknowledged event (`ReadFold`): its own fold by default, the
    /// collector's shared fold in the collector.
    public var fold: any ReadFold

    /// Kept by whoever makes reports again and again (the collector, a benchmark), so each
    /// distinct manifest is decoded once; nil reads and decodes them for every report.
    public var manifestCache: ManifestCache?

    public init(fold: any ReadFold = OwnFold(), manifestCache: ManifestCache? = nil) {
        self.fold = fold
        self.manifestCache = manifestCache
    }

    /// The reads of one report: on `connection`, with this service's fold and manifest cache.
    func reader(on connection: PostgresConnection) -> PostgresReportReader {
        PostgresReportReader(connection: connection, fold: fold, manifestCache: manifestCache)
    }

    public func scope(appId: Int64, request: ReportRequest, on connection: PostgresConnection) throws(ReportFailure) -> ReportScope {
        try scope(appId: appId, request: request, reading: reader(on: connection))
    }

    public func scope(appId: Int64, request: ReportRequest, reading reader: some ReportReading) throws(ReportFailure) -> ReportScope {
        let since = request.since.flatMap(ReportRequest.parseSince)
        let fromDate = request.from.flatMap { ReportRequest.isDate($0) ? $0 : nil }
        let toDate = request.to.flatMap { ReportRequest.isDate($0) ? $0 : nil }
        let sinceDays = since?.days ?? (request.from == nil && since?.hours == nil ? Self.defaultDays : nil)
        let edges = try reader.dayEdges(timeZone: request.timeZone, fromDate: fromDate, toDate: toDate, sinceDays: sinceDays)
        let to = request.to.map { ReportRequest.isDate($0) ? edges.to : Timestamp(iso8601: $0) } ?? edges.now
        var from: Timestamp?
        if let text = request.from {
            from = ReportRequest.isDate(text) ? edges.from : Timestamp(iso8601: text)
        } else if let hours = since?.hours {
            from = (to ?? edges.now).adding(microseconds: -Int64(hours) * 3_600_000_000)
        } else {
            from = edges.since
        }
        guard let from, let to else { throw .invalid(ReportError(.invalidRange, "the range could not be resolved")) }
        return ReportScope(appId: appId, from: from, to: to, timeZone: request.timeZone, filters: request.filters,
                           groupBy: request.groupBy, source: request.source)
    }

    public func report(appId: Int64, appName: String, request: ReportRequest, on connection: PostgresConnection,
                       now: Timestamp = .now) throws(ReportFailure) -> EngagementReport {
        try report(appId: appId, appName: appName, request: request, reading: reader(on: connection), now: now)
    }

    public func report(appId: Int64, appName: String, request: ReportRequest, reading reader: some ReportReading,
                       now: Timestamp = .now) throws(ReportFailure) -> EngagementReport {
        let scope = try scope(appId: appId, request: request, reading: reader)
        return try report(appName: appName, scope: scope, minimumSample: request.minimumSample,
                          targetDifference: request.targetDifference, reading: reader, now: now)
    }

    public func report(appName: String, scope: ReportScope, minimumSample: MinimumSample = .default, targetDifference: Double? = nil,
                       on connection: PostgresConnection, now: Timestamp = .now) throws(ReportFailure) -> EngagementReport {
        try report(appName: appName, scope: scope, minimumSample: minimumSample, targetDifference: targetDifference,
                   reading: reader(on: connection), now: now)
    }

    public func report(appName: String, scope: ReportScope, minimumSample: MinimumSample = .default, targetDifference: Double? = nil,
                       reading reader: some ReportReading, now: Timestamp = .now) throws(ReportFailure) -> EngagementReport {
        do throws(ReportError) { try scope.validate() } catch { throw .invalid(error) }
        let manifests = try reader.manifests(appId: scope.appId)
        // The versions whose manifest registers a category with customDismissAction: the only
        // ones whose dismissals are read.
        let measurable = manifests.keys.sorted().flatMap { version in
            manifests[version]!.categories.filter(\.hasCustomDismissAction).map { (category: $0.identifier, appVersion: version) }
        }
        let data = try reader.read(scope, dismissMeasurable: measurable)
        return EngagementReportBuilder(minimumSample: minimumSample, targetDifference: targetDifference)
            .build(app: appName, scope: scope, data: data, manifests: manifests, generatedAt: now)
    }
}
