import Foundation
import TapwireCore

/// What the holdout simulation draws (`HoldoutSimulator`, docs/holdouts.md): one campaign whose
/// sender assigns each device at random, treated or held out, and devices that convert within the
/// app's holdout window at known rates. Everything follows from `seed`; times are microseconds.
public struct HoldoutConfiguration: Sendable, Equatable {
    public static let day: Int64 = 86_400_000_000

    public var seed: UInt64 = 42
    /// Devices assigned to the campaign.
    public var devices = 20_000
    /// Assignments spread uniformly over the `days` before `end`.
    public var days = 7
    public var end: Timestamp
    public var campaign = "weekly-offer"
    /// The share the sender holds out (and states on every assignment).
    public var holdoutShare = 0.1
    /// P(a held-out device converts within its window).
    public var baseRate = 0.05
    /// Percentage points the campaign adds to a treated device's conversion probability: the
    /// incremental effect the report estimates.
    public var effectPoints = 3.0
    /// The app's holdout window (7 days unless changed): a device converts within it, and before
    /// `end`, so every conversion counts in a report that ends at `end`.
    public var window: Int64 = 7 * day
    /// A converting device's one conversion, its name and value.
    public var outcome = OutcomeName.defaults[0]
    public var currency = "EUR"
    /// The share of devices the sender assigns a second time, later, to the other arm (a sender's
    /// bug): the first assignment is the one kept, so these change nothing.
    public var reassignedShare = 0.01
    public var eventsPerBatch = 50
    /// The share of batches posted a second time, as a sender that lost the response does.
    public var retryFraction = 0.02

    public init(end: Timestamp) { self.end = end }

    /// The true conversion probabilities, treated and held out.
    public var treatedRate: Double { min(1, max(0, baseRate + effectPoints / 100)) }
    public var heldOutRate: Double { baseRate }
    /// The true difference in conversion rate, treated minus held out.
    public var trueDifference: Double { treatedRate - heldOutRate }
    /// The true difference in value per assigned device (before rounding to cents).
    public var trueValueDifference: Double { trueDifference * (outcome.value?.mean ?? 0) }
}
