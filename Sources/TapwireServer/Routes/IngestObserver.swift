import TapwireCore
import TapwireStore

/// What happens after ingestion's routes have done their part: counting, and caches to forget.
/// The routes call every observer they were given and know none of them (`IngestMetrics`,
/// `MismatchMetrics`).
public protocol IngestObserver: Sendable {
    /// A batch was decoded: the events refused one by one (stored or not, they are counted).
    func rejected(_ rejections: [EventRejection])
    /// A batch was committed: what it stored and what it held already.
    func committed(_ batch: StagedBatch, outcome: BatchOutcome, identity: KeyIdentity)
    /// An app posted a manifest.
    func manifestStored(appId: Int64)
}

extension IngestObserver {
    public func rejected(_ rejections: [EventRejection]) {}
    public func committed(_ batch: StagedBatch, outcome: BatchOutcome, identity: KeyIdentity) {}
    public func manifestStored(appId: Int64) {}
}
