/// Dropping one partition of events, as a state machine resumable from any point: a run that
/// was interrupted (cron's timeout, a lost connection) is finished by the next one.
public enum PartitionDrop {
    /// What the catalog says about a partition planned for dropping.
    public enum State: Sendable, Equatable {
        case attached
        /// DETACH … CONCURRENTLY was interrupted after its first transaction.
        case detachPending
        /// Detached, not yet dropped.
        case detached
        case gone
    }

    public enum Step: Sendable, Equatable {
        /// ALTER TABLE events DETACH PARTITION p CONCURRENTLY: collectors keep writing meanwhile.
        case detachConcurrently
        case finalizeDetach
        case drop
        /// Record it as dropped; nothing is left to do.
        case markDropped
    }

    public static func next(_ state: State) -> Step {
        switch state {
        case .attached: return .detachConcurrently
        case .detachPending: return .finalizeDetach
        case .detached: return .drop
        case .gone: return .markDropped
        }
    }

    /// The state a step leads to when it succeeds.
    public static func after(_ step: Step) -> State? {
        switch step {
        case .detachConcurrently, .finalizeDetach: return .detached
        case .drop: return .gone
        case .markDropped: return nil
        }
    }
}
