import TapwireCore
import TapwireStatistics

/// Delivered and dismissals of one category and app version: the dismiss base.
public struct ReportDismissRow: Sendable, Equatable {
    public var group: String
    public var category: String
    public var appVersion: String
    public var delivered: Int
    public var dismissals: Int

    public init(group: String = "", category: String, appVersion: String, delivered: Int, dismissals: Int) {
        self.group = group
        self.category = category
        self.appVersion = appVersion
        self.delivered = delivered
        self.dismissals = dismissals
    }
}
