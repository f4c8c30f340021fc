import TapwireCore
import TapwireStatistics
import TapwireStore

/// How long until the difference is known: the smallest difference detectable now (80% power,
/// two-sided α = 0.05, the adjusted test) and the days until the target one is.
public struct UpliftDetection: Sendable, Equatable {
    public enum TargetSource: String, Sendable {
        /// `--target-difference`.
        case given
        /// The adjusted difference observed, significant at 0.05.
        case observed
        /// 2 pp: the adjusted difference is not significant (or not known).
        case `default`
    }
    public static let defaultTarget = 0.02

    /// A fraction; nil without an adjusted estimate.
    public var minimumDetectableDifference: Double?
    /// A fraction (with the observed sign when observed).
    public var target: Double
    public var targetSource: TargetSource
    /// 0 when already detectable; nil when there is not enough data to say.
    public var daysToDetect: Double?

    public var alreadyDetectable: Bool { daysToDetect == 0 }
}
