/// What a conversion's fields may hold (docs/outcomes.md), in one place: the collector's decoder
/// rejects what breaks them, and the SDK checks them where the app calls, so a bad call fails
/// there and then instead of as a rejection at the next flush.
public enum ConversionRules {
    /// A conversion's `name`, in UTF-8 bytes (the collector's identifier limit).
    public static let maxNameBytes = 256
    /// The largest `value`: beyond any real purchase, within what a sum of millions of them keeps
    /// exact in PostgreSQL numeric and close in a Double.
    public static let maxValue: Double = 1_000_000_000

    /// A finite number from 0 to `maxValue`; a refund is a conversion of its own name.
    public static func isValue(_ value: Double) -> Bool { value.isFinite && value >= 0 && value <= maxValue }

    /// An ISO 4217 code as the collector accepts it: three capital ASCII letters (EUR, USD, JPY).
    public static func isCurrencyCode(_ currency: String) -> Bool {
        currency.utf8.count == 3 && currency.utf8.allSatisfy { $0 >= 65 && $0 <= 90 }
    }
}
