import Testing
@testable import TapwireServer

/// A request's life cycle without sockets: every event the driver feeds, and what it must do.
@Suite struct RequestLifecycleTests {
    typealias Action = RequestLifecycle.Action

    let ok = HTTPResponse(status: 200, body: Array("{}".utf8), annotations: ["accepted": 3])
    let tooLarge = HTTPResponse.error(APIError(.payloadTooLarge, "the body is larger than 10 bytes"))
    let overloaded = HTTPResponse.error(APIError(.overloaded, "too many bodies", retryAfterSeconds: 1))
    let timeout = HTTPResponse.error(APIError(.requestTimeout, "no body data arrived for 10 seconds"))

    /// `#expect` cannot hold a mutating call: the call is made first, then compared.
    func expect<T: Equatable>(_ actual: T, _ expected: T, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(actual == expected, sourceLocation: sourceLocation)
    }

    /// A request whose body is being read, as the driver leaves it after the head is admitted.
    func reading() -> RequestLifecycle {
        var request = RequestLifecycle()
        request.bodyAccepted()
        return request
    }

    /// Through to the handler: body read, decoded, dispatched.
    func handling() -> RequestLifecycle {
        var request = reading()
        _ = request.chunkArrived()
        _ = request.bodyEnded()
        _ = request.bodyDecoded()
        return request
    }

    @Test func aBodyIsReadDecodedHandledSuspendedAndAnswered() {
        var request = reading()
        #expect(request.awaitsBody)
        expect(request.chunkArrived(), .feed)
        expect(request.chunkArrived(), .feed)
        expect(request.bodyEnded(), .decode)
        expect(request.bodyDecoded(), .dispatch)
        #expect(request.phase == .handling)
        #expect(!request.awaitsBody)
        expect(request.handlerReturned(), .suspend)
        #expect(request.phase == .suspended)
        expect(request.answered(ok), .resume)
        #expect(request.phase == .resuming)
        expect(request.bodyEnded(), .respond(ok))
        #expect(request.phase == .responding)
        let outcome = request.completed()
        #expect(outcome.status == 200 && outcome.annotations == ["accepted": 3])
        #expect(request.phase == .finished)
    }

    /// A handler that answers before it returns: no suspend, the answer is queued at once.
    @Test func anAnswerBeforeTheHandlerReturnsIsQueuedWithoutSuspending() {
        var request = handling()
        expect(request.answered(ok), .proceed) // not suspended: nothing to resume
        #expect(request.phase == .handling)
        expect(request.handlerReturned(), .respond(ok))
        #expect(request.status == 200)
    }

    /// A route without a body (or one that ignores it): chunks are dropped, the handler gets an empty body.
    @Test func aRouteThatTakesNoBodyDiscardsChunksAndStillDispatches() {
        var request = RequestLifecycle()
        expect(request.chunkArrived(), .discard)
        expect(request.bodyEnded(), .decode)
        expect(request.bodyDecoded(), .dispatch)
    }

    /// Refused at the head (unknown route, Content-Length over the limit, ambiguous framing):
    /// answered before any body is read, and nothing the client sends after changes it.
    @Test func aRefusedHeadIsAnsweredAtOnceAndItsBodyIgnored() {
        var request = RequestLifecycle()
        let refusal = HTTPResponse.error(APIError(.payloadTooLarge, "Content-Length 99 is over the limit of 10 bytes"))
        expect(request.headRefused(refusal), .respond(refusal))
        #expect(request.phase == .responding)
        #expect(request.status == 413)
        expect(request.chunkArrived(), .discard)
        expect(request.bodyEnded(), .proceed)
        expect(request.uploadTimedOut(timeout), false)
        expect(request.completed().status, 413)
    }

    @Test func aBodyTooLargeIsAnsweredOnceItHasEnded() {
        var request = reading()
        expect(request.chunkArrived(), .feed)
        request.chunkRefused(tooLarge)
        #expect(request.phase == .receiving) // libmicrohttpd answers only once the body has ended
        expect(request.chunkArrived(), .discard)
        expect(request.chunkArrived(), .discard)
        expect(request.bodyEnded(), .respond(tooLarge))
        expect(request.completed().status, 413)
    }

    /// Over the server's body budget: 503, and a later refusal does not replace the first.
    @Test func theFirstRefusalOfABodyIsTheAnswer() {
        var request = reading()
        request.chunkRefused(overloaded)
        request.chunkRefused(tooLarge)
        expect(request.bodyEnded(), .respond(overloaded))
        #expect(request.status == 503)
    }

    /// Truncated or corrupt compression is found only when the whole body has arrived.
    @Test func aBodyThatFailsToDecodeAtTheEndIsAnsweredNotHandled() {
        var request = reading()
        expect(request.bodyEnded(), .decode)
        let corrupt = HTTPResponse.error(APIError(.invalidCompression, "the compressed body is truncated"))
        expect(request.bodyRefused(corrupt), .respond(corrupt))
        #expect(request.phase == .responding)
        expect(request.bodyDecoded(), .proceed)
        expect(request.completed().status, 400)
    }

    /// The client went away mid-body: the request completes unanswered, and a handler's answer
    /// that comes later is dropped instead of resuming a connection that is gone.
    @Test func aClientThatAbortsMidBodyCompletesUnanswered() {
        var request = reading()
        expect(request.chunkArrived(), .feed)
        let outcome = request.completed()
        #expect(outcome.status == 0 && outcome.annotations.isEmpty)
        #expect(request.phase == .finished)
        #expect(!request.awaitsBody)
        expect(request.answered(ok), .proceed)
        #expect(request.answer == nil)
        expect(request.uploadTimedOut(timeout), false)
    }

    @Test func aTimedOutUploadIsAnsweredByTheWatchdogOnceAndTheConnectionClosed() {
        var request = reading()
        expect(request.chunkArrived(), .feed)
        expect(request.uploadTimedOut(timeout), true)
        #expect(request.timedOut && !request.awaitsBody)
        #expect(request.status == 408)
        expect(request.uploadTimedOut(timeout), false) // one 408, not two
        expect(request.chunkArrived(), .close) // bytes that were in flight
        expect(request.bodyEnded(), .close)
        expect(request.bodyDecoded(), .proceed)
        expect(request.completed().status, 408)
    }

    /// A body already with the handler is the collector's time, not the client's.
    @Test func theWatchdogCannotTimeOutARequestPastItsBody() {
        var request = handling()
        expect(request.uploadTimedOut(timeout), false)
        expect(request.handlerReturned(), .suspend)
        expect(request.uploadTimedOut(timeout), false)
        #expect(!request.timedOut)
    }

    /// A handler failure is an answer like any other: its status is what the request completes with.
    @Test func aHandlerErrorIsTheAnswer() {
        var request = handling()
        expect(request.handlerReturned(), .suspend)
        let failure = HTTPResponse.error(APIError(.databaseUnavailable, "the database is unreachable", retryAfterSeconds: 5))
        expect(request.answered(failure), .resume)
        expect(request.bodyEnded(), .respond(failure))
        expect(request.completed().status, failure.status)
    }

    /// A handler must answer exactly once; a second answer, before or after the first is sent,
    /// neither replaces it nor resumes the connection again.
    @Test func onlyTheFirstAnswerCounts() {
        var request = handling()
        expect(request.handlerReturned(), .suspend)
        expect(request.answered(ok), .resume)
        let second = HTTPResponse(status: 500)
        expect(request.answered(second), .proceed)
        expect(request.bodyEnded(), .respond(ok))
        expect(request.answered(second), .proceed)
        expect(request.bodyEnded(), .proceed) // libmicrohttpd calling again sends nothing twice
        expect(request.completed().status, 200)
        expect(request.answered(second), .proceed)
        #expect(request.answer == ok)
    }

    /// libmicrohttpd completes a request once; a second notice changes nothing.
    @Test func aSecondCompletionReportsTheSameOutcome() {
        var request = handling()
        _ = request.handlerReturned()
        _ = request.answered(ok)
        _ = request.bodyEnded()
        let first = request.completed()
        let second = request.completed()
        #expect(first.status == second.status && first.annotations == second.annotations)
        #expect(request.phase == .finished)
    }

    /// Events that do not belong to the phase are no-ops, not state changes.
    @Test func eventsOutOfOrderChangeNothing() {
        var request = RequestLifecycle()
        expect(request.handlerReturned(), .proceed)
        #expect(request.phase == .receiving)
        var suspended = handling()
        _ = suspended.handlerReturned()
        let before = suspended
        expect(suspended.bodyEnded(), .proceed)
        expect(suspended.bodyDecoded(), .proceed)
        suspended.chunkRefused(tooLarge)
        #expect(suspended == before)
    }
}
