import TapwireCore
import TapwireStatistics

public struct ReportHistogramRow: Sendable, Equatable {
    public var group: String
    public var category: String
    public var metric: HistogramMetric
    public var bin: Int
    public var count: Int
    public init(group: String = "", category: String, metric: HistogramMetric, bin: Int, count: Int) {
        self.group = group
        self.category = category
        self.metric = metric
        self.bin = bin
        self.count = count
    }
}
