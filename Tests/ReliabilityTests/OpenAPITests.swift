import Foundation
import Testing
import TapwireCore
@testable import TapwireServer
import TapwireTestSupport

/// The API document is served, matches the checked-in docs/openapi.json, and names every route
/// the collector serves (and nothing it does not).
@Suite struct OpenAPITests {
    static let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("docs/openapi.json").path

    @Test func theServedDocumentIsTheCheckedInOne() throws {
        let server = try TestCollector.start()
        let response = try server.client().get("/openapi.json")
        #expect(response.status == 200)
        #expect(response.headers["content-type"] == "application/json")
        let served = try #require(response.json)
        #expect(served["openapi"]?.stringValue == "3.0.3")
        let pretty = served.serialized(pretty: true) + "\n"
        if ProcessInfo.processInfo.environment["TAPWIRE_WRITE_OPENAPI"] == "1" {
            try pretty.write(toFile: Self.file, atomically: true, encoding: .utf8)
        }
        let checkedIn = try String(contentsOfFile: Self.file, encoding: .utf8)
        #expect(checkedIn == pretty, "docs/openapi.json is stale: TAPWIRE_WRITE_OPENAPI=1 swift test --filter OpenAPITests rewrites it")
    }

    /// Every route a collector serves: one made and never started (it opens no connection).
    static var routes: [Route] {
        Collector(configuration: CollectorConfiguration(databaseURL: "postgresql://127.0.0.1:1/unused"),
                  logger: Logger(label: "test", sink: .memory())).routes
    }

    @Test func everyRouteIsDocumentedAndNothingElse() throws {
        let document = OpenAPIDocument.json
        let paths = try #require(document["paths"]?.objectValue)
        var documented = Set<String>()
        for (path, item) in paths.members {
            for (method, _) in item.objectValue?.members ?? [] { documented.insert(method.uppercased() + " " + path) }
        }
        let served = Set(Self.routes.map { $0.method + " " + $0.path })
        #expect(documented == served, "only documented: \(documented.subtracting(served)); only served: \(served.subtracting(documented))")
        // Keyed routes say which key they take.
        for route in Self.routes where route.access != .open {
            let operation = paths[route.path]?[route.method.lowercased()]
            let scheme = switch route.access { case .write: "writeKey"; case .read: "readKey"; case .admin: "adminKey"; case .open: "" }
            #expect(operation?["security"]?.arrayValue?.first?[scheme] != nil, "\(route.path) does not name \(scheme)")
        }
    }

    @Test func everyErrorCodeIsInTheDocument() throws {
        let codes = OpenAPIDocument.json["components"]?["schemas"]?["Error"]?["properties"]?["error"]?["properties"]?["code"]?["enum"]?
            .arrayValue?.compactMap(\.stringValue) ?? []
        #expect(Set(codes) == Set(APIErrorCode.allCases.map(\.rawValue)))
        let rejections = OpenAPIDocument.json["components"]?["schemas"]?["BatchResult"]?["properties"]?["rejected"]?["items"]?["properties"]?["code"]?["enum"]?
            .arrayValue?.compactMap(\.stringValue) ?? []
        #expect(Set(rejections) == Set(EventRejection.Code.allCases.map(\.rawValue)))
    }
}
