import TapwireCore
import TapwireStore

/// The event counters of `/metrics`, kept as ingestion's routes report what they did: events
/// refused by reason, newly stored by type, and received again.
public struct IngestMetrics: IngestObserver {
    public let metrics: MetricsRegistry

    public init(metrics: MetricsRegistry) { self.metrics = metrics }

    public func rejected(_ rejections: [EventRejection]) {
        for rejection in rejections { metrics.increment(CollectorMetrics.eventsRejected, [rejection.code.rawValue]) }
    }

    /// By type when the whole batch was new; a batch partly stored before counts its new events
    /// under "mixed", since the commit does not say which of them were new.
    public func committed(_ batch: StagedBatch, outcome: BatchOutcome, identity: KeyIdentity) {
        if outcome.duplicates == 0 {
            for (type, count) in Dictionary(grouping: batch.events, by: \.type).mapValues(\.count) {
                metrics.increment(CollectorMetrics.eventsAccepted, [type.rawValue], by: Double(count))
            }
        } else if outcome.stored > 0 {
            metrics.increment(CollectorMetrics.eventsAccepted, ["mixed"], by: Double(outcome.stored))
        }
        metrics.increment(CollectorMetrics.eventsDuplicate, [], by: Double(outcome.duplicates))
    }
}
