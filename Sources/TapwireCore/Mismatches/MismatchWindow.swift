/// How a window [since, until) is read from the rollups: whole UTC days from the daily one, the
/// partial days around them from the hourly one. `since` is rounded down to its hour.
public struct MismatchWindow: Sendable, Equatable {
    public var hourStart: Timestamp
    public var fullDaysStart: Timestamp
    public var fullDaysEnd: Timestamp
    public var until: Timestamp

    public init(since: Timestamp, until: Timestamp) {
        let hour = RollupDeltas.microsecondsPerHour, day = RollupDeltas.microsecondsPerDay
        let start = RollupDeltas.floor(since.microseconds, hour)
        let end = max(until.microseconds, start)
        let firstDay = RollupDeltas.floor(start + day - 1, day)
        let lastDay = RollupDeltas.floor(end, day)
        hourStart = Timestamp(microseconds: start)
        self.until = Timestamp(microseconds: end)
        if firstDay < lastDay {
            fullDaysStart = Timestamp(microseconds: firstDay)
            fullDaysEnd = Timestamp(microseconds: lastDay)
        } else {
            fullDaysStart = self.until
            fullDaysEnd = self.until
        }
    }
}
