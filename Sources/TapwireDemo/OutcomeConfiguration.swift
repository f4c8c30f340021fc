import Foundation
import TapwireCore

/// What the outcome simulation draws (`OutcomeSimulator`). Everything follows from `seed`. Times
/// are microseconds. The rates are the truth the attribution and its intervals are checked against.
public struct OutcomeConfiguration: Sendable, Equatable {
    public static let hour: Int64 = 3_600_000_000

    public var seed: UInt64 = 42
    public var devices = 200
    public var days = 7
    /// The end of the simulated period (exclusive).
    public var end: Timestamp
    /// Notifications per device and day, on average.
    public var notificationsPerDeviceDay = 3.0
    /// Every time is a multiple of this: a millisecond by default, the wire format's precision
    /// (`Timestamp.description`), so the times stored are the times simulated however the batches
    /// are posted; coarser, many events of a device share a time (ties).
    public var timeResolution: Int64 = 1_000
    /// The least time between two notifications of a device. Above `minimumGapForExactRates`
    /// no notification's windows overlap another's, and `OutcomeSimulation`'s true rates are exact.
    public var minimumGap: Int64 = 0
    /// The app's attribution windows (docs/outcomes.md): the simulation converts within them.
    public var directWindow: Int64 = hour
    public var influenceWindow: Int64 = 24 * hour
    /// A response comes uniformly within this time of its delivery (at most the influence window).
    public var latencyMax: Int64 = 2 * hour
    /// Percentage points a shown image adds to a category's engagement rate (as in `tapwire demo`).
    public var upliftPoints = 6.0
    public var mediaFailureRate = 0.08
    /// The share of notifications that carry a notificationId (the others are known by event id).
    public var notificationIdShare = 0.8
    /// The share of direct conversions that name the notification whose tap opened the session.
    public var namedShare = 0.5
    /// P(a conversion follows an engaged response within the direct window).
    public var directRate = 0.25
    /// P(a conversion follows a delivery without an engaged response within the influence window).
    public var influencedRate = 0.03
    /// Points added to both rates when the notification showed media.
    public var richConversionUpliftPoints = 2.0
    /// Conversions that follow no notification, per device and day (a Poisson process).
    public var organicPerDeviceDay = 0.1
    public var outcomes: [OutcomeName] = OutcomeName.defaults
    /// Each device converts in one currency, drawn uniformly.
    public var currencies = ["EUR", "USD"]
    public var roundValuesToCents = true
    /// The share of conversions the app's backend posts (batches of many devices, each event with
    /// its own deviceId); the rest come from the device with its notifications.
    public var backendShare = 0.3
    public var eventsPerBatch = 8
    /// The share of batches posted a second time, as a client that lost the response does.
    public var retryFraction = 0.05

    public init(end: Timestamp) { self.end = end }

    /// Windows of successive notifications never overlap above this gap.
    public var minimumGapForExactRates: Int64 { max(latencyMax + directWindow, influenceWindow) }
}
