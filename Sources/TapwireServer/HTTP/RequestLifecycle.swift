/// One request's life, from its head to libmicrohttpd's completion notice, as a value with no I/O
/// (like `WatchdogClock` and `GroupCommitQueue`). Three threads touch a request: libmicrohttpd's
/// callbacks, the handler answering from wherever it finished, and the upload watchdog answering
/// 408 on its own; this value decides, for each event, what happens next. The driver
/// (HTTPServer.swift) feeds it events, under the request's lock, and performs the actions it
/// returns, so the rules are unit-tested without sockets.
struct RequestLifecycle: Sendable, Equatable {
    enum Phase: String, Sendable, Equatable {
        /// The body is being read (or was never asked for): libmicrohttpd calls back with chunks,
        /// then once more when the body has ended.
        case receiving
        /// Handed to the handler, which has not returned yet.
        case handling
        /// The handler returned without answering: the connection waits, holding no thread.
        case suspended
        /// The handler answered a suspended request; libmicrohttpd will call back to send it.
        case resuming
        /// An answer is queued.
        case responding
        /// libmicrohttpd completed the request: answered, aborted by the client or timed out.
        case finished
    }

    /// How libmicrohttpd ended a request (its `MHD_RequestTerminationCode`), named for the log.
    enum Termination: String, Sendable, Equatable {
        /// The answer was sent whole.
        case completed
        /// The connection failed, or was closed by the collector, before the answer was sent.
        case connectionError = "connection_error"
        /// libmicrohttpd's idle timeout: no bytes moved either way for `--idle-timeout`.
        case idleTimeout = "idle_timeout"
        /// The collector stopped.
        case shutdown
        /// Reading the request failed (the client reset the connection).
        case readError = "read_error"
        /// The client closed the connection before its request was complete.
        case clientClosed = "client_closed"

        /// Whether the client, not the collector, ended the request.
        var byClient: Bool { self == .readError || self == .clientClosed }
    }

    /// What a request completed with: its answer's status (0 when it had none) and annotations,
    /// for logs and metrics, and where it was when it ended if its client did not get that
    /// answer whole (nil when it did).
    struct Completion: Sendable, Equatable {
        var status: Int
        var annotations: [String: Int]
        var unansweredIn: Phase?
    }

    /// What the driver does after an event.
    enum Action: Sendable, Equatable {
        /// Nothing; libmicrohttpd carries on.
        case proceed
        /// Decode this chunk of the body (`chunkRefused` if the decoder refuses it).
        case feed
        /// Drop this chunk: the body already failed, or the route takes none.
        case discard
        /// The body is complete: finish decoding it, then `bodyDecoded` or `bodyRefused`.
        case decode
        /// Hand the request to the handler, then `handlerReturned`.
        case dispatch
        /// Suspend the connection until the handler answers.
        case suspend
        /// Resume the suspended connection: the handler has answered.
        case resume
        /// Queue this answer on the connection.
        case respond(HTTPResponse)
        /// Close the connection without an answer: the upload watchdog already answered 408 on the socket.
        case close
    }

    private(set) var phase = Phase.receiving
    /// The body is being decoded: the route takes one, and nothing has refused it yet.
    private(set) var decodingBody = false
    /// Why the body was refused while it was read; libmicrohttpd lets us answer only once it has ended.
    private(set) var failure: HTTPResponse?
    /// The handler's answer: the first one counts.
    private(set) var answer: HTTPResponse?
    /// The upload watchdog answered 408 on the socket: nothing more is read or sent.
    private(set) var timedOut = false
    /// What the request was answered (0 when it never was), and its annotations, for `HTTPHandler.completed`.
    private(set) var status = 0
    private(set) var annotations: [String: Int] = [:]

    /// Still reading a body the watchdog may time out.
    var awaitsBody: Bool { phase == .receiving && !timedOut }

    /// The head was refused (ambiguous framing, no such route, bad key, body too large or in an
    /// unknown encoding): answer now, before reading any of the body.
    mutating func headRefused(_ response: HTTPResponse) -> Action {
        respond(response)
    }

    /// The route takes a body and its head is acceptable: decode what arrives.
    mutating func bodyAccepted() {
        if phase == .receiving, failure == nil { decodingBody = true }
    }

    /// A chunk of the body arrived.
    mutating func chunkArrived() -> Action {
        if timedOut { return .close }
        return phase == .receiving && decodingBody ? .feed : .discard
    }

    /// The decoder refused a chunk (too large, over the server's body budget, corrupt): the rest
    /// of the body is discarded, and this is the answer once it has ended.
    mutating func chunkRefused(_ response: HTTPResponse) {
        guard phase == .receiving, failure == nil else { return }
        failure = response
        decodingBody = false
    }

    /// libmicrohttpd called back without a chunk: the body has ended, or a resumed connection
    /// is ready to send the handler's answer.
    mutating func bodyEnded() -> Action {
        switch phase {
        case .receiving:
            if timedOut { return .close }
            if let failure { return respond(failure) }
            decodingBody = false
            return .decode
        case .resuming:
            guard let answer else { return .close }
            return respond(answer)
        case .handling, .suspended, .responding, .finished:
            return .proceed
        }
    }

    /// The whole body decoded: the handler takes it.
    mutating func bodyDecoded() -> Action {
        guard phase == .receiving, !timedOut else { return .proceed }
        phase = .handling
        return .dispatch
    }

    /// The complete body could not be decoded (truncated or corrupt compression).
    mutating func bodyRefused(_ response: HTTPResponse) -> Action {
        guard phase == .receiving, !timedOut else { return .proceed }
        return respond(response)
    }

    /// The handler returned: it answered already, or the connection waits for its answer.
    mutating func handlerReturned() -> Action {
        guard phase == .handling else { return .proceed }
        if let answer { return respond(answer) }
        phase = .suspended
        return .suspend
    }

    /// The handler answered, from any thread. Only the first answer counts, and none after the
    /// request has completed (the client went away).
    mutating func answered(_ response: HTTPResponse) -> Action {
        guard answer == nil, phase != .finished else { return .proceed }
        answer = response
        guard phase == .suspended else { return .proceed }
        phase = .resuming
        return .resume
    }

    /// The upload watchdog judged the client too slow. True when the watchdog is to write this
    /// answer on the socket itself (libmicrohttpd writes nothing while it waits for the body);
    /// false when the request is past reading its body, or already timed out.
    mutating func uploadTimedOut(_ response: HTTPResponse) -> Bool {
        guard awaitsBody else { return false }
        timedOut = true
        decodingBody = false
        record(response)
        return true
    }

    /// libmicrohttpd completed the request, ending it as `termination`. Its client got an answer
    /// when libmicrohttpd sent the queued one whole, or when the watchdog wrote its 408 on the
    /// socket; any other end leaves the client unable to tell what became of its request.
    mutating func completed(_ termination: Termination = .completed) -> Completion {
        let endedIn = phase
        phase = .finished
        decodingBody = false
        let answered = timedOut || (termination == .completed && status != 0)
        return Completion(status: status, annotations: annotations, unansweredIn: answered ? nil : endedIn)
    }

    private mutating func respond(_ response: HTTPResponse) -> Action {
        phase = .responding
        decodingBody = false
        record(response)
        return .respond(response)
    }

    private mutating func record(_ response: HTTPResponse) {
        status = response.status
        annotations = response.annotations
    }
}
