import TapwireCore
import TapwireReport
import TapwireStore

/// The report endpoints, read key only (a write key ships inside apps and gets 403):
/// `GET /v1/reports/engagement?…&format=json|csv|html|md|table` and `GET /report?app=…`, the
/// HTML report for a browser. Query parameters are the `tapwire report` options.
public struct ReportRoutes: Sendable {
    public var reports: any EngagementReportReader

    public init(reports: any EngagementReportReader) { self.reports = reports }

    public var all: [Route] {
        [
            Route("GET", "/v1/reports/engagement", access: .read) { [self] (call) throws(APIError) in try await serve(call, defaultFormat: .json) },
            Route("GET", "/report", access: .read) { [self] (call) throws(APIError) in try await serve(call, defaultFormat: .html) },
        ]
    }

    func serve(_ call: RouteRequest, defaultFormat: ReportOutputFormat) async throws(APIError) -> HTTPResponse {
        let identity = try call.ownApp()
        var format = defaultFormat
        var options: [(String, String)] = []
        for (name, value) in call.request.query.sorted(by: { $0.key < $1.key }) {
            switch name {
            case "app": continue
            case "format":
                guard let parsed = ReportOutputFormat(name: value) else { throw APIError(.badRequest, "format must be json, csv, html, md or table") }
                format = parsed
            default: options.append((name, value))
            }
        }
        let request: ReportRequest
        do {
            request = try ReportRequest(options: options)
        } catch {
            throw APIError(error)
        }
        let answer = try await reports.report(appId: identity.appId, appName: identity.appName, request: request, withFindings: format.showsFindings)
        var response = HTTPResponse.text(200, format.render(answer.report, findings: answer.findings), contentType: format.contentType)
        response.headers.append(("Cache-Control", "no-store"))
        // Read from a hot standby well behind its primary: how far, in seconds.
        if let lag = answer.standby.noticeableLagSeconds {
            response.headers.append(("Tapwire-Replay-Lag-Seconds", String(Int(lag.rounded()))))
        }
        if format == .csv {
            response.headers.append(("Content-Disposition", "attachment; filename=\"engagement-\(identity.appName).csv\""))
        }
        return response
    }
}
