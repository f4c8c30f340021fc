/// One registered action's responses per hour of a `RegressionDayRow`'s day.
public struct RegressionActionHours: Sendable, Equatable {
    public var identifier: String
    /// 24 counts, one per hour of the day.
    public var counts: [Int]

    public init(identifier: String, counts: [Int]) {
        self.identifier = identifier
        self.counts = counts
    }
}
