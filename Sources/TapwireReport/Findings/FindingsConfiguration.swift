import TapwireCore
import TapwireStore

/// The settings of every family: what `FindingFamilies.all` builds them with.
public struct FindingsConfiguration: Sendable {
    /// The category-mismatch rules.
    public var mismatchRules = MismatchRules()
    /// How far back the monitor's mismatch scan looks: findings that first appeared while every
    /// collector was down for less than this are still announced.
    public var mismatchLookbackSeconds: Double = 7 * 86_400
    /// The release-regression check's settings (`--regression-min-drop`, …).
    public var regression = RegressionConfiguration.default
    /// How the families' reads count every acknowledged event: their own fold, or the
    /// collector's shared one (`ReadFold`), one per request or monitor scan.
    public var fold: any ReadFold = OwnFold()
    /// Manifests decoded before, shared by the families' reads (`MismatchStore.manifestCache`);
    /// nil: each read decodes its own.
    public var manifestCache: ManifestCache?

    public init(mismatchRules: MismatchRules = MismatchRules(), mismatchLookbackSeconds: Double = 7 * 86_400,
                regression: RegressionConfiguration = .default, fold: any ReadFold = OwnFold(), manifestCache: ManifestCache? = nil) {
        self.mismatchRules = mismatchRules
        self.mismatchLookbackSeconds = mismatchLookbackSeconds
        self.regression = regression
        self.fold = fold
        self.manifestCache = manifestCache
    }

    public static let `default` = FindingsConfiguration()
}
