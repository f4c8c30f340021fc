/// The value of every dimension for one event: what filters test and `--by` groups on. A missing
/// campaign or variant is "", as in the rollups.
public typealias DimensionValues = DimensionFields<String>

/// Every dimension's value, as a text or as a text's id (`RollupText`): the marginals of
/// `RollupTally.derive` read them by dimension in either form.
public struct DimensionFields<Text: Sendable & Hashable>: Sendable, Hashable {
    public var appVersion: Text
    public var platform: Text
    public var campaign: Text
    public var variant: Text
    public var os: Text

    public init(appVersion: Text, platform: Text, campaign: Text, variant: Text, os: Text) {
        self.appVersion = appVersion
        self.platform = platform
        self.campaign = campaign
        self.variant = variant
        self.os = os
    }

    public subscript(dimension: ReportDimension) -> Text {
        switch dimension {
        case .appVersion: return appVersion
        case .platform: return platform
        case .campaign: return campaign
        case .variant: return variant
        case .os: return os
        }
    }
}

extension DimensionFields where Text == String {
    public init(appVersion: String = "", platform: String = "", campaign: String = "", variant: String = "", os: String = "") {
        self.appVersion = appVersion
        self.platform = platform
        self.campaign = campaign
        self.variant = variant
        self.os = os
    }
}
