import TapwireCore
import TapwireStatistics

/// One conversion name of one category (or of all of them) as the tables show it: its figures
/// and its rich vs text-only comparison.
struct ConversionLine: Sendable {
    var categoryName: String
    var isTotal: Bool
    var conversion: CategoryConversion
    var uplift: RichUplift?

    var label: String { conversion.currency.isEmpty ? conversion.name : "\(conversion.name) (\(conversion.currency))" }

    /// The lines of a section: each category's names, then the overall's.
    static func lines(_ categories: [CategoryEngagement], _ overall: CategoryEngagement) -> [ConversionLine] {
        (categories + [overall]).flatMap { c in
            c.conversions.map { v in
                ConversionLine(categoryName: c.displayName, isTotal: c.category == nil, conversion: v,
                               uplift: c.conversionUplift.first { $0.name == v.name && $0.currency == v.currency }?.uplift)
            }
        }
    }
}
