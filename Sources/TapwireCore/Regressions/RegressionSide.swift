/// One side's totals at a look, over the strata where both sides delivered.
public struct RegressionSide: Sendable, Equatable {
    public var delivered: Int
    public var count: Int
    public var rate: Double { delivered > 0 ? Double(count) / Double(delivered) : 0 }

    public init(delivered: Int, count: Int) {
        self.delivered = delivered
        self.count = count
    }
}

extension RegressionSide: Codable {}
