import TapwireCore

/// A request with its body fully read and decoded (decompressed when it was gzip or deflate).
public struct HTTPRequest: Sendable {
    public var head: RequestHead
    public var body: [UInt8]
    /// When the last byte of the body arrived: the receive time of clock-skew correction.
    public var receivedAt: Timestamp
    /// Bytes on the wire, before decompression.
    public var wireBytes: Int

    public var method: String { head.method }
    public var path: String { head.path }
    public var query: [String: String] { head.query }
    public func header(_ name: String) -> String? { head.header(name) }
}
