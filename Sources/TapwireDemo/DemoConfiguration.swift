import Foundation
import TapwireCore

/// What `tapwire demo` simulates. Everything follows from `seed`, so a run is reproducible.
public struct DemoConfiguration: Sendable, Equatable {
    public var seed: UInt64 = 42
    public var devices = 2_000
    public var notifications = 150_000
    public var days = 14
    /// The end of the simulated period (exclusive); events spread over the `days` before it.
    public var end: Timestamp
    /// The true engagement difference, rich minus text-only, in percentage points, added to
    /// every category's base rate when media was shown.
    public var upliftPoints: Double = 6
    /// The share of media downloads that fail (the notification shows as text-only).
    public var mediaFailureRate = 0.08
    /// The share of batches posted twice, as a client retrying after a lost response would.
    public var retryFraction = 0.01
    public var eventsPerBatch = 400

    public init(end: Timestamp) { self.end = end }
}
