import TapwireCore
import TapwireReport
import TapwireStore

/// The report endpoints, read key only (a write key ships inside apps and gets 403):
/// `GET /v1/reports/engagement?…&format=json|csv|html|md|table` and `GET /report?app=…`, the
/// HTML report for a browser. Query parameters are the `tapwire report` options.
public enum ReportRoutes {
    public static var all: [Route] {
        [
            Route("GET", "/v1/reports/engagement", access: .read) { serve($0, defaultFormat: .json) },
            Route("GET", "/report", access: .read) { serve($0, defaultFormat: .html) },
        ]
    }

    static func serve(_ call: RouteRequest, defaultFormat: ReportOutputFormat) {
        guard call.requireOwnApp(), let identity = call.identity else { return }
        var format = defaultFormat
        var options: [(String, String)] = []
        for (name, value) in call.request.query.sorted(by: { $0.key < $1.key }) {
            switch name {
            case "app": continue
            case "format":
                guard let parsed = ReportOutputFormat(name: value) else {
                    return call.fail(APIError(.badRequest, "format must be json, csv, html, md or table"))
                }
                format = parsed
            default: options.append((name, value))
            }
        }
        let request: ReportRequest
        do {
            request = try ReportRequest(options: options)
        } catch {
            return call.fail(APIError(error))
        }
        let chosen = format
        let regression = call.services.configuration.regression
        call.services.database.submit({ (connection) throws(ReportFailure) in
            let service = EngagementReportService()
            let report = try service.report(appId: identity.appId, appName: identity.appName, request: request, on: connection)
            do throws(DatabaseError) {
                let findings = chosen.showsFindings
                    ? try service.findings(for: report, appId: identity.appId, regression: regression, on: connection) : nil
                return (report, findings, try StandbyStatus.read(on: connection))
            } catch {
                throw .database(error)
            }
        }) { result in
            switch result {
            case .success(let (report, findings, standby)):
                var response = HTTPResponse.text(200, chosen.render(report, findings: findings), contentType: chosen.contentType)
                response.headers.append(("Cache-Control", "no-store"))
                // Read from a hot standby well behind its primary: how far, in seconds.
                if let lag = standby.noticeableLagSeconds {
                    response.headers.append(("Tapwire-Replay-Lag-Seconds", String(Int(lag.rounded()))))
                }
                if chosen == .csv {
                    response.headers.append(("Content-Disposition", "attachment; filename=\"engagement-\(identity.appName).csv\""))
                }
                call.respond(response)
            case .failure(let error):
                if case .failed(.database(let database)) = error, !database.isUnavailable, !database.isTransientConflict {
                    call.services.logger.log(.error, "report failed", database.logFields)
                }
                call.fail(APIError(error, doing: "the report") { APIError($0, doing: "the report") })
            }
        }
    }
}
