/// The retry policy as a pure state machine: outcomes in, decisions out, no I/O and no clock
/// (jitter comes from the generator passed in), so every status code is unit-tested.
///
/// - 200: acknowledge the batch, report exactly its rejected events; reset backoff; grow the batch
///   limit back towards the maximum.
/// - 413, and 400 (the batch is malformed, so some event in it is poison): halve the batch; a batch
///   of one that still fails is dropped and reported, so one bad event cannot block the queue.
/// - 415: retry once without gzip; if that too is refused, back off.
/// - 429, 503: wait at least Retry-After (plus a little jitter), or back off when it is absent.
/// - 401, 403, 408, other 4xx, 5xx, unreadable 200s and network errors: keep everything, back off.
public struct DeliveryStateMachine: Sendable, Equatable {
    public var policy: RetryPolicy
    public let maxBatch: Int
    public private(set) var consecutiveFailures = 0
    public private(set) var batchLimit: Int
    public private(set) var compress = true

    public init(policy: RetryPolicy = RetryPolicy(), maxBatch: Int) {
        self.policy = policy
        self.maxBatch = max(1, maxBatch)
        self.batchLimit = self.maxBatch
    }

    public mutating func next<G: RandomNumberGenerator>(after outcome: SendOutcome, batchCount: Int,
                                                        using random: inout G) -> DeliveryDecision {
        switch outcome {
        case .acknowledged(let ack):
            consecutiveFailures = 0
            batchLimit = min(maxBatch, batchLimit * 2)
            var seen = Set<Int>()
            let rejected = ack.rejected.filter { $0.index >= 0 && $0.index < batchCount && seen.insert($0.index).inserted }
            return .acknowledge(count: batchCount, rejected: rejected)

        case .status(let status, let retryAfter, let errorCode):
            switch status {
            case 413, 400:
                guard batchCount > 1 else {
                    consecutiveFailures = 0
                    let code = errorCode ?? (status == 413 ? "event_too_large" : "invalid_event")
                    return .dropPoison(BatchRejection(index: 0, eventId: nil, code: code,
                                                      reason: "the collector answered \(status) to a batch of this one event"))
                }
                batchLimit = max(1, batchCount / 2)
                return .split(batchLimit: batchLimit)
            case 415:
                if compress {
                    compress = false
                    return .retryUncompressed
                }
                return backoff(.unsupportedEncoding, using: &random)
            case 429, 503:
                let reason: WaitReason = status == 429 ? .rateLimited : .unavailable
                guard let retryAfter, retryAfter.isFinite, retryAfter >= 0 else { return backoff(reason, using: &random) }
                consecutiveFailures += 1
                let wait = min(retryAfter, policy.maxRetryAfter)
                let jitter = wait * policy.retryAfterJitter * Double.random(in: 0..<1, using: &random)
                return .wait(seconds: wait + jitter, reason: reason)
            case 401: return backoff(.unauthorized, using: &random)
            case 403: return backoff(.forbidden, using: &random)
            case 408: return backoff(.timeout, using: &random)
            case 500...599: return backoff(.serverError, using: &random)
            default: return backoff(.unexpectedStatus, using: &random)
            }

        case .unreadable:
            return backoff(.unreadableResponse, using: &random)
        case .transportFailure:
            return backoff(.network, using: &random)
        }
    }

    /// Exponential backoff with "equal jitter": half the step is fixed, half is random, so
    /// retries spread out but never collapse to zero.
    private mutating func backoff<G: RandomNumberGenerator>(_ reason: WaitReason, using random: inout G) -> DeliveryDecision {
        consecutiveFailures += 1
        let step = min(policy.maxDelay, policy.baseDelay * pow(policy.multiplier, consecutiveFailures - 1))
        return .wait(seconds: step / 2 + step / 2 * Double.random(in: 0..<1, using: &random), reason: reason)
    }

    private func pow(_ base: Double, _ exponent: Int) -> Double {
        var result = 1.0
        for _ in 0..<min(max(0, exponent), 64) { result *= base }
        return result
    }

    /// The step before jitter after `failures` consecutive failures (for documentation and tests).
    public func backoffStep(failures: Int) -> Double {
        min(policy.maxDelay, policy.baseDelay * pow(policy.multiplier, failures - 1))
    }
}
