/// What a finding is about.
public struct FindingSubject: Sendable, Equatable {
    /// The app versions affected ('' is events without one); a regression names its candidate.
    public var appVersions: [String]
    public var category: String
    /// The action identifier, when the finding is about one (Apple's identifiers for opens and
    /// dismissals); nil for a whole category, or for text replies, which span its text-input actions.
    public var action: String?
    /// The version it is measured against, for a finding that compares versions (a release
    /// regression names the newest version of its baseline); nil otherwise.
    public var baselineVersion: String?

    public init(appVersions: [String], category: String, action: String? = nil, baselineVersion: String? = nil) {
        self.appVersions = appVersions
        self.category = category
        self.action = action
        self.baselineVersion = baselineVersion
    }
}
