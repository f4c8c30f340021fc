import TapwireCore
import TapwireStatistics

/// The counters of one category and side (rich or text-only) over part of a range.
public struct ReportTotalsRow: Sendable, Equatable {
    /// The `--by` value ("" without one).
    public var group: String
    public var category: String
    public var hasMedia: Bool
    /// The UTC day (days since 1970-01-01) when the row covers part of a day the range cuts;
    /// nil for the range's whole UTC days. A cut day is one stratum of the adjusted difference.
    public var cutDay: Int?
    public var counts: RollupDeltas.Counts

    public init(group: String = "", category: String, hasMedia: Bool, cutDay: Int? = nil, counts: RollupDeltas.Counts) {
        self.group = group
        self.category = category
        self.hasMedia = hasMedia
        self.cutDay = cutDay
        self.counts = counts
    }
}
