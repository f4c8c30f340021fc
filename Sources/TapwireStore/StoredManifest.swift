public struct StoredManifest: Sendable, Equatable {
    public var manifestId: Int64
    public var contentHash: String
    /// False when the same content was already stored for this app version.
    public var created: Bool

    public init(manifestId: Int64, contentHash: String, created: Bool) {
        self.manifestId = manifestId
        self.contentHash = contentHash
        self.created = created
    }
}
