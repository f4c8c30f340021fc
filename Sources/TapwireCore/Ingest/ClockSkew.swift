/// Clock-skew correction as Segment and Snowplow do it: the device's clock may be wrong, but
/// the interval between its `timestamp` and its `sentAt` is right, so
/// `eventTime = receivedAt - (sentAt - timestamp)`.
public struct ClockSkew: Sendable, Equatable {
    /// receivedAt - sentAt, or 0 when the batch had no sentAt.
    public var offsetMicroseconds: Int64
    public var receivedAt: Timestamp
    /// A corrected time further than this in the future is clamped to receivedAt.
    public var maxFutureMicroseconds: Int64

    /// A sentAt so absurd that the offset does not fit: every time is clamped.
    public var offsetOverflowed: Bool

    public init(sentAt: Timestamp?, receivedAt: Timestamp, maxFutureMicroseconds: Int64 = 86_400_000_000) {
        let (offset, overflow) = sentAt.map { receivedAt.microseconds.subtractingReportingOverflow($0.microseconds) } ?? (0, false)
        self.offsetMicroseconds = offset
        self.offsetOverflowed = overflow
        self.receivedAt = receivedAt
        self.maxFutureMicroseconds = maxFutureMicroseconds
    }

    /// The corrected time, and whether it had to be clamped.
    public func correct(_ deviceTime: Timestamp) -> (time: Timestamp, clamped: Bool) {
        let (corrected, overflow) = deviceTime.microseconds.addingReportingOverflow(offsetMicroseconds)
        let (ahead, aheadOverflow) = corrected.subtractingReportingOverflow(receivedAt.microseconds)
        if offsetOverflowed || overflow || aheadOverflow || ahead > maxFutureMicroseconds {
            return (receivedAt, true)
        }
        return (Timestamp(microseconds: corrected), false)
    }
}
