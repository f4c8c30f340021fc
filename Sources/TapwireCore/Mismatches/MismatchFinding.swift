/// One problem, over one or more app versions and platforms.
public struct MismatchFinding: Sendable, Equatable {
    public var kind: MismatchKind
    public var severity: FindingSeverity
    public var category: String
    public var action: String?
    /// Notifications affected for category kinds (see `MismatchTally.notifications`); responses for
    /// `unregistered_action` and `impossible_dismiss`; 0 for `dead_category`.
    public var count: Int64
    public var tally: MismatchTally
    public var appVersions: [String]
    public var platforms: [String]
    /// nil only for `dead_category` (nothing was seen) and caveats derived from the manifest alone.
    public var firstSeen: Timestamp?
    public var lastSeen: Timestamp?
    /// A registered identifier to use instead (case mismatch, near miss, a near action), else nil.
    public var suggestion: String?
    /// One sentence a person can act on: what happened and how to fix it.
    public var message: String
    /// An unknown category that the manifest does register but devices report as not registered:
    /// the set on the device was replaced.
    public var wipedOnDevice: Bool

    public init(kind: MismatchKind, severity: FindingSeverity, category: String, action: String? = nil, count: Int64,
                tally: MismatchTally = MismatchTally(), appVersions: [String], platforms: [String],
                firstSeen: Timestamp?, lastSeen: Timestamp?, suggestion: String? = nil, message: String = "",
                wipedOnDevice: Bool = false) {
        self.wipedOnDevice = wipedOnDevice
        self.kind = kind
        self.severity = severity
        self.category = category
        self.action = action
        self.count = count
        self.tally = tally
        self.appVersions = appVersions
        self.platforms = platforms
        self.firstSeen = firstSeen
        self.lastSeen = lastSeen
        self.suggestion = suggestion
        self.message = message
    }
}
