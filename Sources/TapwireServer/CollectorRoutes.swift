/// Routes added by feature areas (reports, mismatches, the API document) register here, one
/// line each; `Collector` serves them next to the ingestion routes.
public enum ExtensionRoutes {
    public static var all: [Route] {
        MismatchRoutes.all
            + ReportRoutes.all
            + [OpenAPIDocument.route]
    }
}
