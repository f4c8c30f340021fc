/// One request body as the upload watchdog judges it: how long its client has owed bytes
/// without sending any. A pure value, so the rule is unit-tested without sockets.
///
/// The client is charged only for time in which it owed bytes: the kernel had received less
/// than the whole request and held none of it unread. Once every byte has reached this host
/// the client owes nothing, however long the collector then takes to look at them (bytes in
/// libmicrohttpd's buffer, an HTTP thread busy with another request, a suspended connection),
/// so it is never answered 408. See docs/reliability.md, "Upload deadlines".
struct UploadAccount: Sendable, Equatable {
    enum Verdict: Sendable, Equatable {
        /// Still owed, within the limits.
        case receiving
        /// Every byte of the request has arrived: nothing is owed, stop watching.
        case received
        /// Owed bytes and sent none for `stallLimit`.
        case stalled
        /// Owed bytes for longer than `deadline` in all.
        case late
    }

    let stallLimit: UInt64
    let deadline: UInt64
    /// Where this request ends in its connection's byte stream (head plus Content-Length), when
    /// known; nil for chunked bodies, or when an earlier request's length was not known.
    let wireEnd: UInt64?
    private(set) var lastLook: UInt64
    /// The last time the client was seen sending, or was excused.
    private(set) var lastProgress: UInt64
    /// Time charged against `deadline`.
    private(set) var owedNanoseconds: UInt64 = 0
    /// The kernel's count of bytes received on the connection, at the last look.
    private(set) var received: UInt64?

    init(now: UInt64, stallLimit: UInt64, deadline: UInt64, wireEnd: UInt64?) {
        self.stallLimit = stallLimit
        self.deadline = deadline
        self.wireEnd = wireEnd
        lastLook = now
        lastProgress = now
    }

    /// Body bytes reached the handler.
    mutating func delivered(now: UInt64) { lastProgress = max(lastProgress, now) }

    /// One look by the watchdog.
    /// - received: the kernel's count of bytes received on the connection (nil when the kernel
    ///   cannot tell, and then only deliveries count as progress);
    /// - unreadBytes: bytes the kernel holds that nobody has read yet (the collector is behind,
    ///   and may have closed the client's TCP window: not the client's stall);
    /// - excused: time the collector itself was not running since the last look (`WatchdogClock`).
    mutating func look(now: UInt64, received: UInt64?, unreadBytes: Int, excused: UInt64) -> Verdict {
        let elapsed = now > lastLook ? now - lastLook : 0
        lastLook = now
        if excused > 0 { lastProgress = min(now, lastProgress &+ excused) }
        if let received {
            if let wireEnd, received >= wireEnd { return .received }
            if let before = self.received, received > before { lastProgress = max(lastProgress, now) }
            self.received = received
        }
        if unreadBytes > 0 {
            lastProgress = max(lastProgress, now)
            return .receiving
        }
        owedNanoseconds &+= elapsed > excused ? elapsed - excused : 0
        if now > lastProgress, now - lastProgress > stallLimit { return .stalled }
        if owedNanoseconds > deadline { return .late }
        return .receiving
    }
}
