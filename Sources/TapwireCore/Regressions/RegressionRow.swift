/// One UTC hour of one category on one app version and platform: what the rollups keep at their
/// finest grain (rollup_counts and rollup_actions, grain 0), summed over the dimensions the
/// caller does not stratify by. Rows with the same keys are added, so counts and actions may
/// come in separate rows.
public struct RegressionRow: Sendable, Equatable {
    public var category: String
    public var appVersion: String
    public var platform: String
    /// Further stratum dimensions the caller adjusts for (campaign, say), as one key; '' for none.
    public var segment: String
    /// Start of the UTC hour, µs since 1970.
    public var hour: Int64
    public var delivered: Int
    public var opens: Int
    public var dismissals: Int
    /// Responses with a registered action that carried a reply.
    public var textReplies: Int
    /// Responses per registered action identifier.
    public var actions: [String: Int]

    public init(category: String, appVersion: String, platform: String, segment: String = "", hour: Int64, delivered: Int,
                opens: Int = 0, dismissals: Int = 0, textReplies: Int = 0, actions: [String: Int] = [:]) {
        self.category = category
        self.appVersion = appVersion
        self.platform = platform
        self.segment = segment
        self.hour = hour
        self.delivered = delivered
        self.opens = opens
        self.dismissals = dismissals
        self.textReplies = textReplies
        self.actions = actions
    }
}
