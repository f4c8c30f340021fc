import Foundation

/// What the SDK records: `delivered` (the engagement denominator, from a Notification Service
/// Extension or `willPresent`), `response` (from `didReceive`) and `conversion` (an outcome the
/// app counts, `recordConversion`).
public enum TelemetryEventType: String, Sendable, CaseIterable, Hashable {
    case delivered
    case response
    case conversion
}
