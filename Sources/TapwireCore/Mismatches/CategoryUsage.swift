/// One line of the usage rollup summed over a window: how many events of one shape there were.
/// `action` is nil for `delivered` and `sent` events.
public struct CategoryUsage: Sendable, Hashable {
    public var appVersion: String
    public var platform: String
    public var type: EventType
    public var category: String
    public var action: String?
    public var registration: RegistrationReport
    public var count: Int64
    public var firstSeen: Timestamp
    public var lastSeen: Timestamp

    public init(appVersion: String, platform: String, type: EventType, category: String, action: String? = nil,
                registration: RegistrationReport = .notReported, count: Int64, firstSeen: Timestamp, lastSeen: Timestamp) {
        self.appVersion = appVersion
        self.platform = platform
        self.type = type
        self.category = category
        self.action = action.flatMap { $0.isEmpty ? nil : $0 }
        self.registration = registration
        self.count = count
        self.firstSeen = firstSeen
        self.lastSeen = lastSeen
    }
}
