import Foundation

public enum ManifestSyncResult: Sendable, Equatable {
    /// Same content hash as the last successful sync: nothing was posted.
    case unchanged
    /// Posted and stored; `created` is false when the collector already had this content.
    case synced(contentHash: String, created: Bool?)
    /// Kept on disk; the next flush posts it again.
    case pending(reason: String)
    /// The collector refused it (4xx other than 408/429): it is not retried until it changes.
    case rejected(status: Int, message: String)
}
