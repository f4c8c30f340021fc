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
