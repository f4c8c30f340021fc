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
    /// The G₁ the rule read, the larger of the value's over the cell's delivered notifications and
    /// over the whole report's, and the delivered the interval needs (nil without a spread of
    /// values, or when no count would do).
    public var valueSkewness: Double?
    public var valueDeliveredNeeded: Int?

    /// `valuePool`: the name's and currency's values over every delivered notification of the
    /// report (`valueMoments` of all its rows), whose skewness the interval's rule reads too.
    init(name: String, currency: String, rows: [ReportConversionRow], delivered: Int, valuePool: SkewAdjustedMean.Moments?) {
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
            ? ConversionValueInterval.estimate(Self.valueMoments(rows, delivered: delivered), pool: valuePool)
            : ConversionValueInterval.Estimate()
        valuePerDeliveredCI95 = value.ci95
        valuePerDeliveredWithheld = value.withheld
        valueSkewness = value.skewness
        valueDeliveredNeeded = value.deliveredNeeded
    }

    /// The moments of the value per delivered notification: `rows`' sums over `delivered`, the
    /// notifications without a conversion counting as 0.
    static func valueMoments(_ rows: [ReportConversionRow], delivered: Int) -> SkewAdjustedMean.Moments? {
        SkewAdjustedMean.moments(count: delivered, sum: rows.reduce(0) { $0 + $1.valueSum },
                                 sumOfSquares: rows.reduce(0) { $0 + $1.valueSquares }, sumOfCubes: rows.reduce(0) { $0 + $1.valueCubes })
    }
}
