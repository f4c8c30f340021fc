/// The limits the server applies to one route's body while it is read.
public struct BodyPolicy: Sendable {
    public var maxWireBytes: Int
    public var maxDecodedBytes: Int
    public init(maxWireBytes: Int, maxDecodedBytes: Int) {
        self.maxWireBytes = maxWireBytes
        self.maxDecodedBytes = maxDecodedBytes
    }
}
