import TapwireCore
import TapwireStatistics
import TapwireStore

/// A category an overall ("All categories", or a `--by` section's) leaves out of every one of its
/// figures, so that no overall rate mixes a `sent` base with a `delivered` one, and no odd
/// category blanks the others' figures (docs/reports.md, "Which notifications a figure counts").
/// Its own row still shows it.
public struct OverallExclusion: Sendable, Equatable {
    public enum Reason: String, Sendable {
        /// No delivered events: its rates are over `sent`, which the overall's are not.
        case sentBase = "sent_base"
        /// More engaged than delivered: its rate is not meaningful, so its counts are not either.
        case engagementNotMeaningful = "engagement_not_meaningful"
        /// Neither delivered nor sent events: there is nothing to take a rate over.
        case noBase = "no_base"
    }
    public var category: String
    public var reason: Reason
    public var delivered: Int
    public var sent: Int
    public var engaged: Int
}
