
public struct StoredManifest: Sendable, Equatable {
    public var manifestId: Int64
    public var contentHash: String
    /// False when the same content was already stored for this app version.
    public var created: Bool
}
