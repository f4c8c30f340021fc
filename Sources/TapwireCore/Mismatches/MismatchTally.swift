/// Event tallies behind a finding, so `count` can be explained.
public struct MismatchTally: Sendable, Hashable {
    public var delivered: Int64 = 0
    public var sent: Int64 = 0
    public var responses: Int64 = 0
    public init(delivered: Int64 = 0, sent: Int64 = 0, responses: Int64 = 0) {
        self.delivered = delivered
        self.sent = sent
        self.responses = responses
    }

    mutating func add(_ type: EventType, _ count: Int64) {
        switch type {
        case .delivered: delivered += count
        case .sent: sent += count
        case .response: responses += count
        case .conversion, .assignment: break
        }
    }

    static func + (a: MismatchTally, b: MismatchTally) -> MismatchTally {
        MismatchTally(delivered: a.delivered + b.delivered, sent: a.sent + b.sent, responses: a.responses + b.responses)
    }

    /// Notifications affected: deliveries are the denominator; the backend's `sent` count stands in
    /// when no device reported a delivery; responses are the last resort (each one proves a
    /// notification was shown). Never a sum, which would count one notification two or three times.
    public var notifications: Int64 { delivered > 0 ? delivered : (sent > 0 ? sent : responses) }
}
