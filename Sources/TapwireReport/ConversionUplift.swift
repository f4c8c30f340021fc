import TapwireCore
import TapwireStatistics

/// Rich vs text-only on one conversion name: the engagement comparison (`RichUplift`, the same
/// code) with converted notifications in place of engaged ones, over the same strata.
public struct ConversionUplift: Sendable, Equatable {
    public var name: String
    public var currency: String
    /// `rich.engaged` and `textOnly.engaged` are converted notifications.
    public var uplift: RichUplift

    public init(name: String, currency: String, uplift: RichUplift) {
        self.name = name
        self.currency = currency
        self.uplift = uplift
    }
}
