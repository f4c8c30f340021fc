import Foundation

/// What the SDK records: `delivered` (the engagement denominator, from a Notification Service
/// Extension or `willPresent`) and `response` (from `didReceive`).
public enum TelemetryEventType: String, Sendable, CaseIterable, Hashable {
    case delivered
    case response
}
