import TapwireStore

/// The collector's event sink: the group committer, awaited.
extension GroupCommitter: EventSink {
    public func store(_ batch: StagedBatch) async -> Result<BatchOutcome, CommitFailure> {
        await withCheckedContinuation { continuation in
            submit(batch) { continuation.resume(returning: $0) }
        }
    }
}
