import TapwireCore
import TapwireStatistics

/// One conversion name (and currency) in a category, or in all of them: what its notifications
/// led to (docs/reports.md, "Conversions").
public struct CategoryConversion: Sendable, Equatable {
    public var name: String
    /// "" for conversions without a value.
    public var currency: String
    /// Conversions credited to a tap of the category's notifications (direct) or to a delivery
    /// without one (influenced); a notification with several counts each.
    public var direct: Int
    public var influenced: Int
    /// Notifications with at least one conversion of the name: the rate's numerator.
    public var converted: Int
    /// The rate's base: the category's delivered notifications over the range.
    public var delivered: Int
    /// converted / delivered, with Wilson's 95% interval; nil without deliveries, or when
    /// converted exceeds delivered (conversions credited to taps whose deliveries were not posted).
    public var rate: Double?
    public var ci95: ConfidenceInterval?
    public var valueSum: Double
    /// valueSum / delivered, and its 95% interval (`ConversionValueInterval`): nil when
    /// withheld, the point estimate stays.
    public var valuePerDelivered: Double?
    public var valuePerDeliveredCI95: ConfidenceInterval?
    /// Why the interval is nil though the values vary: fewer delivered than values this skewed
    /// need (`SkewedSampleSize.mean`). Nil when shown.
    public var valuePerDeliveredWithheld: String?
    /// G₁ of the value over every delivered notification, and the delivered the interval needs
    /// (nil without a spread of values, or when no count would do).
    public var valueSkewness: Double?
    public var valueDeliveredNeeded: Int?

    init(name: String, currency: String, rows: [ReportConversionRow], delivered: Int) {
        self.name = name
        self.currency = currency
        direct = rows.reduce(0) { $0 + $1.direct }
        influenced = rows.reduce(0) { $0 + $1.influenced }
        converted = rows.reduce(0) { $0 + $1.converted }
        self.delivered = delivered
        valueSum = rows.reduce(0) { $0 + $1.valueSum }
        let meaningful = converted <= delivered
        rate = meaningful ? ProportionStatistics.share(converted, of: delivered) : nil
        ci95 = meaningful ? ProportionStatistics.wilson(successes: converted, trials: delivered) : nil
        let hasValue = !currency.isEmpty
        valuePerDelivered = hasValue && meaningful && delivered > 0 ? valueSum / Double(delivered) : nil
        let value = hasValue && meaningful
            ? ConversionValueInterval.estimate(count: delivered, sum: valueSum, sumOfSquares: rows.reduce(0) { $0 + $1.valueSquares },
                                               sumOfCubes: rows.reduce(0) { $0 + $1.valueCubes })
            : ConversionValueInterval.Estimate()
        valuePerDeliveredCI95 = value.ci95
        valuePerDeliveredWithheld = value.withheld
        valueSkewness = value.skewness
        valueDeliveredNeeded = value.deliveredNeeded
    }
}
