import TapwireCore
import TapwireStatistics

/// Where the report's numbers are read from. `.rollups` is the product, and what an unfiltered
/// report reads; `.rawEvents` computes every figure from events in SQL: the oracle the tests and
/// the benchmark hold the rollups equal to, and what a filtered or grouped report reads
/// (docs/reports.md, "What each report reads").
public enum ReportSource: String, Sendable {
    case rollups
    case rawEvents
}
