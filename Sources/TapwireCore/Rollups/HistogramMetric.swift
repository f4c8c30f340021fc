import Foundation

/// The bucket layouts of the percentile histograms kept in the rollups. The group commit bins
/// values here (`RollupDeltas`); SQL has the same rules (functions tapwire_reply_bin and
/// tapwire_latency_bin, migration 0010), used to rebuild and to check. These types also turn
/// bins back into values and state the resolution the report prints.
public enum HistogramMetric: Int, Sendable, CaseIterable {
    case replyLength = 1
    case timeToResponse = 2
}
