import TapwireCore
import TapwireStatistics

/// Conversions of one category, side (rich or text-only), name and currency over part of a range
/// (rollup_conversions, or notification_conversions for a day the range cuts): docs/outcomes.md.
public struct ReportConversionRow: Sendable, Equatable {
    /// The `--by` value ("" without one).
    public var group: String
    public var category: String
    public var hasMedia: Bool
    public var name: String
    /// "" for conversions without a value.
    public var currency: String
    /// The UTC day (days since 1970-01-01) when the row covers part of a day the range cuts; nil
    /// for the range's whole UTC days (as `ReportTotalsRow.cutDay`).
    public var cutDay: Int?
    public var direct: Int
    public var influenced: Int
    /// Notifications credited with at least one conversion of the name (each counted once).
    public var converted: Int
    /// Σx, Σx², Σx³ over the converted notifications' values (exact decimals read as doubles).
    public var valueSum: Double
    public var valueSquares: Double
    public var valueCubes: Double

    public init(group: String = "", category: String, hasMedia: Bool, name: String, currency: String = "", cutDay: Int? = nil,
                direct: Int, influenced: Int, converted: Int, valueSum: Double = 0, valueSquares: Double = 0, valueCubes: Double = 0) {
        self.group = group
        self.category = category
        self.hasMedia = hasMedia
        self.name = name
        self.currency = currency
        self.cutDay = cutDay
        self.direct = direct
        self.influenced = influenced
        self.converted = converted
        self.valueSum = valueSum
        self.valueSquares = valueSquares
        self.valueCubes = valueCubes
    }
}
