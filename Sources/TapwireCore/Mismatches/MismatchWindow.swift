/// How a window [since, until) is read from the rollups: every hour of it from the hourly one
/// (migration 0330; the daily table it read whole days from is gone). `since` is rounded down
/// to its hour.
public struct MismatchWindow: Sendable, Equatable {
    public var hourStart: Timestamp
    public var until: Timestamp

    public init(since: Timestamp, until: Timestamp) {
        let start = RollupDeltas.floor(since.microseconds, RollupDeltas.microsecondsPerHour)
        hourStart = Timestamp(microseconds: start)
        self.until = Timestamp(microseconds: max(until.microseconds, start))
    }
}
