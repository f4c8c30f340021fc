/// What came of one attempt to post a batch.
public enum SendOutcome: Sendable, Equatable {
    /// 200 with a body that parses as an acknowledgement.
    case acknowledged(BatchAcknowledgement)
    /// Any other status. `retryAfter` in seconds; `errorCode` from `{"error": {"code"}}`.
    case status(Int, retryAfter: Double?, errorCode: String?)
    /// 200 whose body is not an acknowledgement (a captive portal, a proxy): nothing is proven
    /// stored, so nothing is dropped.
    case unreadable(status: Int)
    /// The request did not complete (no connection, reset, timeout on the device side).
    case transportFailure
}
