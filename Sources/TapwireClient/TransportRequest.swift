import Foundation

public struct TransportRequest: Sendable, Equatable {
    public var url: URL
    public var method: String
    /// Header names as sent; at most one of each.
    public var headers: [String: String]
    public var body: [UInt8]

    public init(url: URL, method: String = "POST", headers: [String: String] = [:], body: [UInt8] = []) {
        self.url = url
        self.method = method
        self.headers = headers
        self.body = body
    }
}
