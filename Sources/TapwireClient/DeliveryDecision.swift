/// What the driver must do next.
public enum DeliveryDecision: Sendable, Equatable {
    /// Remove the batch's `count` events from the queue; report `rejected` (a subset of them).
    case acknowledge(count: Int, rejected: [BatchRejection])
    /// Send again at once, with at most `batchLimit` events.
    case split(batchLimit: Int)
    /// Remove the single event of the batch, report it, and continue.
    case dropPoison(BatchRejection)
    /// The collector refused gzip: send again at once without compression.
    case retryUncompressed
    /// Keep everything and try again after `seconds`.
    case wait(seconds: Double, reason: WaitReason)
}
