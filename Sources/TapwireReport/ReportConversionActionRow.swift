import TapwireCore

/// Direct conversions of one category and name by the action of the tap that preceded them
/// (Apple's default action identifier for an open).
public struct ReportConversionActionRow: Sendable, Equatable {
    public var group: String
    public var category: String
    public var action: String
    public var name: String
    public var direct: Int

    public init(group: String = "", category: String, action: String, name: String, direct: Int) {
        self.group = group
        self.category = category
        self.action = action
        self.name = name
        self.direct = direct
    }
}
