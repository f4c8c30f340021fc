/// What a telemetry event records. `delivered` is the denominator of engagement, `response`
/// is what the user did, `sent` is the push backend's own count (the fallback denominator),
/// `conversion` an outcome the app counts, attributed to notifications (docs/outcomes.md),
/// `assignment` a device's arm in a campaign's randomised holdout (docs/holdouts.md).
public enum EventType: String, Sendable, CaseIterable, Hashable {
    case delivered
    case response
    case sent
    case conversion
    case assignment
}
