import Foundation
import TapwireCore

/// A zero-inflated lognormal value: 0 with `zeroShare` (a free order, a trial), else exp(N(mu, sigma²)).
public struct ValueModel: Sendable, Equatable {
    public var zeroShare: Double
    public var mu: Double
    public var sigma: Double

    public init(zeroShare: Double, mu: Double, sigma: Double) {
        self.zeroShare = zeroShare
        self.mu = mu
        self.sigma = sigma
    }

    /// E[value] = (1 − zeroShare)·exp(mu + sigma²/2), before rounding to cents.
    public var mean: Double { (1 - zeroShare) * exp(mu + sigma * sigma / 2) }
}
