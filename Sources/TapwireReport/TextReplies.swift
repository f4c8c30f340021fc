import TapwireCore
import TapwireStatistics
import TapwireStore

public struct TextReplies: Sendable, Equatable {
    public var count: Int
    public var p50Length: Int?
    public var p90Length: Int?
}
