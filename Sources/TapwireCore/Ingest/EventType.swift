/// What a telemetry event records. `delivered` is the denominator of engagement, `response`
/// is what the user did, `sent` is the push backend's own count (the fallback denominator).
public enum EventType: String, Sendable, CaseIterable, Hashable {
    case delivered
    case response
    case sent
}
