import TapwireStore

/// Where `POST /v1/batch` stores a batch: the group committer in the collector
/// (GroupCommitter+EventSink.swift). Answered once the rows are committed, or refused with
/// nothing stored.
public protocol EventSink: Sendable {
    func store(_ batch: StagedBatch) async -> Result<BatchOutcome, CommitFailure>
}
