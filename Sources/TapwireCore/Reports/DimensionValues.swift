/// The value of every dimension for one event: what filters test and `--by` groups on. A missing
/// campaign or variant is "", as in the rollups.
public struct DimensionValues: Sendable, Hashable {
    public var appVersion: String
    public var platform: String
    public var campaign: String
    public var variant: String
    public var os: String

    public init(appVersion: String = "", platform: String = "", campaign: String = "", variant: String = "", os: String = "") {
        self.appVersion = appVersion
        self.platform = platform
        self.campaign = campaign
        self.variant = variant
        self.os = os
    }

    public subscript(dimension: ReportDimension) -> String {
        switch dimension {
        case .appVersion: return appVersion
        case .platform: return platform
        case .campaign: return campaign
        case .variant: return variant
        case .os: return os
        }
    }
}
