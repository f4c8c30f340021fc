import TapwireCore

/// Every conversion of one name, currency and kind over the range, by the conversion's own time
/// (rollup_conversion_totals): unattributed ones too, so the totals add up.
public struct ReportConversionTotalRow: Sendable, Equatable {
    /// docs/outcomes.md, "The rule" (the `kind` of conversion_credits).
    public enum Kind: Int, Sendable {
        case direct = 1
        case influenced = 2
        case unattributed = 3
    }

    public var name: String
    public var currency: String
    public var kind: Kind
    public var conversions: Int
    public var valueSum: Double

    public init(name: String, currency: String = "", kind: Kind, conversions: Int, valueSum: Double = 0) {
        self.name = name
        self.currency = currency
        self.kind = kind
        self.conversions = conversions
        self.valueSum = valueSum
    }
}
