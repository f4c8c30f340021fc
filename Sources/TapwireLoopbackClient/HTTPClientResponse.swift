import Foundation
import TapwireCore

/// A response as the client read it off the socket.
public struct HTTPClientResponse: Sendable {
    public var status: Int
    /// Lowercased names.
    public var headers: [String: String]
    public var body: [UInt8]

    public init(status: Int, headers: [String: String], body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    public var text: String { String(decoding: body, as: UTF8.self) }
    public var json: JSONValue? { try? JSONParser().parse(body) }
    /// `error.code` of an error body.
    public var errorCode: String? { json?["error"]?["code"]?.stringValue }
}
