/// When the collectors' findings monitor runs a family (`FindingMonitor.Options` sets the times).
public enum FindingCadence: Sendable, Equatable {
    /// Every scan (`scanSeconds`), as of the scan's start.
    case continuous
    /// Once an hour, as of the end of the hour that ended `regressionDelaySeconds` ago, so the
    /// hour's late batches are in: one look per hour, which every collector shares.
    case hourly
}
