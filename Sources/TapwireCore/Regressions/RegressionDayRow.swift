/// One UTC day of one category on one app version and platform, as the release rollups keep it
/// (migration 0080): each outcome's count per hour of the day. The hourly check reads these, a
/// row per day where `RegressionRow` would be one per hour, so nothing is built per hour.
public struct RegressionDayRow: Sendable, Equatable {
    public var category: String
    public var appVersion: String
    public var platform: String
    /// Further stratum dimensions the caller adjusts for, as one key; '' for none.
    public var segment: String
    /// Start of the UTC day, µs since 1970.
    public var day: Int64
    /// Per hour of the day, 24 each.
    public var delivered: [Int]
    public var opens: [Int]
    public var dismissals: [Int]
    public var textReplies: [Int]
    /// Responses per registered action identifier, per hour of the day.
    public var actions: [RegressionActionHours]

    public init(category: String, appVersion: String, platform: String, segment: String = "", day: Int64, delivered: [Int],
                opens: [Int], dismissals: [Int], textReplies: [Int], actions: [RegressionActionHours] = []) {
        precondition([delivered, opens, dismissals, textReplies].allSatisfy { $0.count == 24 } && actions.allSatisfy { $0.counts.count == 24 },
                     "a day row holds 24 hours of each outcome")
        self.category = category
        self.appVersion = appVersion
        self.platform = platform
        self.segment = segment
        self.day = day
        self.delivered = delivered
        self.opens = opens
        self.dismissals = dismissals
        self.textReplies = textReplies
        self.actions = actions
    }

    /// The hours with anything counted, as hourly rows.
    public var hourly: [RegressionRow] {
        (0..<24).compactMap { h in
            var perAction: [String: Int] = [:]
            for action in actions where action.counts[h] != 0 { perAction[action.identifier, default: 0] += action.counts[h] }
            guard delivered[h] != 0 || opens[h] != 0 || dismissals[h] != 0 || textReplies[h] != 0 || !perAction.isEmpty else { return nil }
            return RegressionRow(category: category, appVersion: appVersion, platform: platform, segment: segment,
                                 hour: day + Int64(h) * RollupDeltas.microsecondsPerHour, delivered: delivered[h], opens: opens[h],
                                 dismissals: dismissals[h], textReplies: textReplies[h], actions: perAction)
        }
    }
}
