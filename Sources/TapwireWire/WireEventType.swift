/// An event's `type`.
public enum WireEventType: String, Sendable, CaseIterable, Hashable {
    case delivered
    case response
    case sent
    /// An outcome the app counts (a purchase, a signup): `name`, optional `value` and `currency`.
    case conversion
    /// A device's arm in a campaign's holdout: `campaign`, `arm`, `holdoutShare`, `deviceId`.
    case assignment
}
