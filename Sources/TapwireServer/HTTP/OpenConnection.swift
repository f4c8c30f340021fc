import Foundation
import Synchronization

/// One TCP connection, from libmicrohttpd's "started" notice to its "closed" one: when it began
/// waiting for its next request's headers (nil while a request is in progress), and whether its
/// request line was refused.
final class OpenConnection: Sendable {
    struct State {
        /// Our own duplicate of the socket (see `RequestContext.State.watchdogSocket`).
        var socket: Int32
        var waitingSince: UInt64?
        var refused = false
        /// Where the next request begins in the connection's byte stream (bytes since the
        /// connection opened); nil once a request of unknown wire length (chunked) has passed.
        var nextRequestStart: UInt64? = 0
        /// The upload watchdog shut the socket down (header deadline): why a request still in
        /// flight on it would end without its answer, for the log.
        var closedByWatchdog = false

        /// The header deadline, as one look by the watchdog at `now`: first excuses `excused`
        /// (time the collector itself was not running), then returns how long the connection has
        /// waited for its next request's headers if that is longer than `deadline`, else nil.
        ///
        /// `now` is read once per sweep, before the sweep takes each connection's lock, so a
        /// request on this connection may have been answered after it: the wait then began
        /// after `now`, and it is not overdue. (Subtracting the two with wrap-around made such a
        /// wait look 584 years old, and the watchdog shut down connections it had just answered:
        /// the client's next request on it got no response.)
        mutating func overdueWait(now: UInt64, excused: UInt64, deadline: UInt64) -> UInt64? {
            guard var since = waitingSince, since < now else { return nil }
            if excused > 0 {
                since = min(now, since &+ excused)
                waitingSince = since
            }
            return now - since > deadline ? now - since : nil
        }
    }

    let state: Mutex<State>

    init(socket: Int32, now: UInt64) { state = Mutex(State(socket: socket, waitingSince: now)) }

    func close() {
        state.withLock { c in
            if c.socket >= 0 { Glibc.close(c.socket) }
            c.socket = -1
        }
    }
}
