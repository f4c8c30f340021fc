import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

// What the driver (HTTPServer.swift) and the upload watchdog share about a request and its
// connection. No libmicrohttpd pointer is held here: the driver passes what it must do with
// one (resume a connection) as a closure.

/// One request across libmicrohttpd's callbacks, the handler's answer and the upload watchdog.
/// Its life cycle is `RequestLifecycle`; the rest of `State` is what the driver performs it with.
final class RequestContext: Sendable {
    struct State {
        var lifecycle = RequestLifecycle()
        var body: BodyReader?
        /// What the client still owes of its body and for how long (the upload watchdog's
        /// judgement); nil for requests without a body.
        var account: UploadAccount?
        /// Where this request ends in the connection's byte stream, when known: the next
        /// request on the connection starts there.
        var wireEnd: UInt64?
        /// Our own duplicate of the socket, so the upload watchdog can answer 408 on it: a dup
        /// refers to this connection's socket even if MHD has closed (and reused) its descriptor.
        var watchdogSocket: Int32 = -1
        /// Bytes of the server's `BodyBudget` this request holds once its body is decoded, until it completes.
        var budgetBytes = 0
        /// Who answers the request, once admitted.
        var responder: Responder?
        /// The request's name in logs and metrics, once the handler has seen its head.
        var label: String?

        /// A chunk of the body arrived: decoded, or dropped past an error. `.close` once the
        /// watchdog has answered 408.
        mutating func receive(_ chunk: [UInt8], now: UInt64) -> RequestLifecycle.Action {
            let action = lifecycle.chunkArrived()
            if action == .close { return action }
            account?.delivered(now: now)
            guard action == .feed, let body else { return action }
            do throws(APIError) {
                try body.feed(chunk)
            } catch {
                lifecycle.chunkRefused(.error(error))
                dropBody() // frees what was decoded so far
            }
            return action
        }

        /// The body has ended (or a resumed connection is ready to answer): the next action, and
        /// the request to hand to the handler when that action is `.dispatch`.
        mutating func endBody(head: RequestHead) -> (action: RequestLifecycle.Action, request: HTTPRequest?) {
            // Whatever comes next, the watchdog is done with this request (closing twice is harmless).
            closeWatchdogSocket()
            let action = lifecycle.bodyEnded()
            guard action == .decode else { return (action, nil) }
            do throws(APIError) {
                let decoded = try body?.finish() ?? [] // a route that takes no body gets an empty one
                let wire = body?.wireBytes ?? 0
                budgetBytes = body?.reserved ?? 0 // held until the request completes
                body = nil
                return (lifecycle.bodyDecoded(), HTTPRequest(head: head, body: decoded, receivedAt: .now, wireBytes: wire))
            } catch {
                dropBody()
                return (lifecycle.bodyRefused(.error(error)), nil)
            }
        }

        /// libmicrohttpd completed the request: every byte it held of the budget goes back.
        mutating func complete(_ termination: RequestLifecycle.Termination, budget: BodyBudget) -> RequestLifecycle.Completion {
            let outcome = lifecycle.completed(termination)
            dropBody()
            budget.release(budgetBytes)
            budgetBytes = 0
            closeWatchdogSocket()
            return outcome
        }

        /// The body is dropped before it was handled: its share of the budget goes back.
        mutating func dropBody() {
            body?.releaseBudget()
            body = nil
        }

        mutating func closeWatchdogSocket() {
            if watchdogSocket >= 0 {
                close(watchdogSocket)
                watchdogSocket = -1
            }
        }
    }

    let head: RequestHead
    let startedAt: UInt64
    let state: Mutex<State>
    /// Resumes the suspended connection; the driver's libmicrohttpd call.
    private let resume: @Sendable () -> Void

    init(head: RequestHead, now: UInt64, resume: @escaping @Sendable () -> Void) {
        self.head = head
        self.startedAt = now
        self.resume = resume
        self.state = Mutex(State())
    }

    /// The handler's answer. Exactly the first call counts. The resume happens under the lock,
    /// so it cannot overtake the suspend it undoes.
    func deliver(_ response: HTTPResponse) {
        state.withLock { s in
            if s.lifecycle.answered(response) == .resume { resume() }
        }
    }
}

/// Where a request ends in its connection's byte stream: its start, its head as libmicrohttpd
/// parsed it, and its Content-Length. Unknown (nil) for chunked bodies, whose framing we never
/// see, and when the start or the head's size is unknown.
func wireEnd(start: UInt64?, headBytes: UInt64, head: RequestHead) -> UInt64? {
    guard let start, headBytes > 0, head.header("transfer-encoding") == nil else { return nil }
    if head.header("content-length") == nil { return start &+ headBytes }
    guard let body = head.contentLength, body >= 0 else { return nil }
    return start &+ headBytes &+ UInt64(body)
}
