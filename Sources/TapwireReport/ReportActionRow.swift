import TapwireCore
import TapwireStatistics

public struct ReportActionRow: Sendable, Equatable {
    public var group: String
    public var category: String
    public var action: String
    public var count: Int
    public init(group: String = "", category: String, action: String, count: Int) {
        self.group = group
        self.category = category
        self.action = action
        self.count = count
    }
}
