import Foundation
import TapwireCore

/// A conversion name the simulated app posts, how often, and its value.
public struct OutcomeName: Sendable, Equatable {
    public var name: String
    /// The share of conversions with this name.
    public var weight: Double
    /// Nil: posted without a value.
    public var value: ValueModel?

    public init(name: String, weight: Double, value: ValueModel?) {
        self.name = name
        self.weight = weight
        self.value = value
    }

    public static let defaults = [
        OutcomeName(name: "purchase", weight: 0.5, value: ValueModel(zeroShare: 0.15, mu: 3, sigma: 1.1)),
        OutcomeName(name: "subscribe", weight: 0.2, value: ValueModel(zeroShare: 0.5, mu: 2, sigma: 0.4)),
        OutcomeName(name: "signup", weight: 0.3, value: nil),
    ]
}
