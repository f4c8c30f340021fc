import TapwireCore

/// Every route the collector serves, in one list: ingestion, mismatches, findings, reports and the API
/// document. A feature area adds its routes here, one line; `Collector` serves this list, and
/// the tests that check every route (keys, the OpenAPI document) read it.
public enum CollectorRoutes {
    public static func all(limits: IngestLimits) -> [Route] {
        IngestRoutes.all(limits: limits)
            + MismatchRoutes.all
            + FindingRoutes.all
            + ReportRoutes.all
            + [OpenAPIDocument.route]
    }
}
