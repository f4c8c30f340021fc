import TapwireStatistics

/// The settings of the check, with the defaults docs/regressions.md argues for.
public struct RegressionConfiguration: Sendable, Equatable {
    /// The chance that a version comparison with no real change ever raises a finding in any of
    /// its series, over every look for as long as it runs. Split evenly over the series.
    public var familyAlpha: Double
    /// The smallest fall worth a finding, as a share of the baseline's rate: a finding needs the
    /// whole anytime-valid interval below −minimumRelativeDrop × baseline rate. Default 0.10.
    public var minimumRelativeDrop: Double
    /// Deliveries each side must have, and outcomes each side must expect, before a look counts.
    public var minimumSample: MinimumSample
    /// Σ n1·n2/N (candidate × baseline deliveries over their sum, per stratum) at which the
    /// boundary is tightest. Default 2,500: Eppo's N_tune of 10,000 deliveries split evenly.
    public var tuningEffectiveDeliveries: Double
    /// The version to test; nil: the newest, the highest version number (compared number by
    /// number) among those that delivered.
    public var candidateVersion: String?
    /// How many UTC days, from its first, the wired check follows a version (the rows it reads;
    /// the rule itself evaluates whatever rows it is given). After that its verdict stays as it
    /// was at the end of the last day. Default 28 (docs/regressions.md, "The hourly check").
    public var horizonDays: Int

    public static let `default` = RegressionConfiguration()

    public init(familyAlpha: Double = 0.05, minimumRelativeDrop: Double = 0.10, minimumSample: MinimumSample = .default,
                tuningEffectiveDeliveries: Double = 2_500, candidateVersion: String? = nil, horizonDays: Int = 28) {
        self.familyAlpha = familyAlpha
        self.minimumRelativeDrop = minimumRelativeDrop
        self.minimumSample = minimumSample
        self.tuningEffectiveDeliveries = tuningEffectiveDeliveries
        self.candidateVersion = candidateVersion
        self.horizonDays = horizonDays
    }

    /// Nil when usable, otherwise what to fix.
    public var problem: String? {
        if !(familyAlpha > 0 && familyAlpha < 1) { return "the family's alpha must lie strictly between 0 and 1" }
        if !(minimumRelativeDrop >= 0 && minimumRelativeDrop < 1) { return "the minimum drop must be at least 0 and below 1 (a share of the baseline rate)" }
        if !(tuningEffectiveDeliveries > 0 && tuningEffectiveDeliveries.isFinite) { return "the tuning sample must be a positive number of deliveries" }
        if minimumSample.perSide < 1 || !(minimumSample.expectedCount >= 0) { return "the minimum sample must be at least 1 delivery per side" }
        if !(1...400).contains(horizonDays) { return "the horizon must be from 1 to 400 days" }
        return nil
    }
}

extension RegressionConfiguration {
    /// The version of the stored looks' shape and of the rule that made them: bump it whenever
    /// either changes, so a collector never serves a look an older build took.
    public static let lookFormatVersion = 1

    /// Everything a look's result depends on besides the data and the manifests, as one stable
    /// text: a stored look is served only to a reader with the same fingerprint.
    public var lookFingerprint: String {
        "v\(Self.lookFormatVersion) alpha=\(familyAlpha) drop=\(minimumRelativeDrop) sample=\(minimumSample.perSide)/\(minimumSample.expectedCount) "
            + "tune=\(tuningEffectiveDeliveries) horizon=\(horizonDays) candidate=\(candidateVersion.map { "[\($0)]" } ?? "newest")"
    }
}
