import TapwireCore
import TapwireStatistics

/// The sums over the strata of one category, conversion name and currency on one whole UTC day:
/// rich vs text-only on conversion, with converted notifications in place of engaged ones
/// (sql/queries/report_conversion_uplift.sql).
public struct ReportConversionUpliftDayRow: Sendable, Equatable {
    public var name: String
    public var currency: String
    /// The day's sums, as engagement's (`group`, `category`, `utcDay`, `day`); `wholeReport` is
    /// always true: conversions are grouped by campaign or platform only, which never split a stratum.
    public var row: ReportUpliftDayRow

    public init(name: String, currency: String = "", row: ReportUpliftDayRow) {
        self.name = name
        self.currency = currency
        self.row = row
    }
}
