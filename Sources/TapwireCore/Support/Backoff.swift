/// Exponential backoff with full jitter (AWS Architecture Blog, "Exponential Backoff And Jitter").
/// Pure: randomness comes from the caller's generator.
public struct Backoff: Sendable, Equatable {
    public var baseSeconds: Double
    public var maxSeconds: Double
    public private(set) var attempt = 0

    public init(baseSeconds: Double = 0.1, maxSeconds: Double = 5) {
        self.baseSeconds = baseSeconds
        self.maxSeconds = maxSeconds
    }

    /// The ceiling of the next delay, before jitter.
    public var currentCeiling: Double { min(maxSeconds, baseSeconds * Double(1 << min(attempt, 30))) }

    public mutating func nextDelay<G: RandomNumberGenerator>(using generator: inout G) -> Double {
        let ceiling = currentCeiling
        attempt += 1
        return Double.random(in: (ceiling / 2)...ceiling, using: &generator)
    }

    public mutating func reset() { attempt = 0 }
}
