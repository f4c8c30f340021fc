import Foundation
import TapwireCore
import TapwireLoopbackClient
import TapwireServer
import TapwireZlib

public typealias TestResponse = HTTPClientResponse
public typealias TestConnection = HTTPClientConnection

/// A test's setup went wrong: a binary not built, a process that did not come up.
public struct TestClientError: Error, CustomStringConvertible {
    public var message: String
    public init(message: String) { self.message = message }
    public var description: String { message }
}

/// Requests to a collector under test, one connection each, over the tools' plain loopback
/// client (TapwireLoopbackClient): tests need to send exactly the bytes they mean (bad
/// encodings, partial bodies, stalls), which URLSession would not allow.
public struct HTTPTestClient: Sendable {
    public let port: Int
    public init(port: Int) { self.port = port }

    /// Basic auth header value for a key.
    public static func basic(_ key: String) -> String {
        "Basic " + Data((key + ":").utf8).base64EncodedString()
    }

    public func request(_ method: String, _ path: String, headers: [String: String] = [:], body: [UInt8] = [],
                        timeout: Double = 30) throws -> TestResponse {
        let connection = try TestConnection(port: port, timeout: timeout)
        defer { connection.close() }
        try connection.send(Self.head(method, path, headers: headers, contentLength: body.count) + body)
        return try connection.readResponse()
    }

    /// POST with a key, gzip-compressing the body unless told otherwise. `timeout`: how long the
    /// answer may take (longer than whatever the test itself waits for meanwhile).
    public func post(_ path: String, key: String?, json: [UInt8], encoding: String? = "gzip",
                     extraHeaders: [String: String] = [:], timeout: Double = 30) throws -> TestResponse {
        var headers = extraHeaders
        headers["Content-Type"] = "application/json"
        if let key { headers["Authorization"] = Self.basic(key) }
        var body = json
        if let encoding {
            headers["Content-Encoding"] = encoding
            switch encoding {
            case "gzip": body = try Zlib.compress(json, format: .gzip)
            case "deflate": body = try Zlib.compress(json, format: .zlib)
            default: break
            }
        }
        return try request("POST", path, headers: headers, body: body, timeout: timeout)
    }

    public func get(_ path: String, key: String? = nil) throws -> TestResponse {
        try request("GET", path, headers: key.map { ["Authorization": Self.basic($0)] } ?? [:])
    }

    public static func head(_ method: String, _ path: String, headers: [String: String], contentLength: Int?) -> [UInt8] {
        httpRequestHead(method, path, headers: headers, contentLength: contentLength)
    }
}

