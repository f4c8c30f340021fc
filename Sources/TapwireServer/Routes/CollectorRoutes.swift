import TapwireCore

/// Every route the collector serves, in one list: ingestion, health, mismatches, findings, reports,
/// devices (forgetting one) and the API document. Each group is made with the small protocols its handlers need, and a
/// feature area adds its group here, one line; `Collector` serves this list (`Collector.routes`),
/// and the tests that check every route (keys, the OpenAPI document) read it.
public enum CollectorRoutes {
    public static func all(ingest: IngestRoutes, health: HealthRoutes, findings: any FindingsReader,
                           reports: any EngagementReportReader, devices: DeviceRoutes) -> [Route] {
        let groups: [[Route]] = [
            ingest.all,
            health.all,
            MismatchRoutes(findings: findings).all,
            FindingRoutes(findings: findings).all,
            ReportRoutes(reports: reports).all,
            devices.all,
            [OpenAPIDocument.route],
        ]
        return groups.flatMap { $0 }
    }
}
