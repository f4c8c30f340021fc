/// An event's `type`.
public enum WireEventType: String, Sendable, CaseIterable, Hashable {
    case delivered
    case response
    case sent
}
