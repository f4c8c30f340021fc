import TapwireCore

/// Every conversion of one name and currency in the range, by its own time, and how it was
/// credited: direct + influenced + unattributed is every conversion stored.
public struct ConversionTotal: Sendable, Equatable {
    public var name: String
    public var currency: String
    public var direct = 0
    public var influenced = 0
    public var unattributed = 0
    public var directValue = 0.0
    public var influencedValue = 0.0
    public var unattributedValue = 0.0

    public var conversions: Int { direct + influenced + unattributed }
    public var value: Double { directValue + influencedValue + unattributedValue }

    public init(name: String, currency: String) {
        self.name = name
        self.currency = currency
    }

    /// One total per name and currency, in name order.
    static func totals(_ rows: [ReportConversionTotalRow]) -> [ConversionTotal] {
        var byKey: [Bytewise<String>: ConversionTotal] = [:]
        for row in rows {
            let key = Bytewise(row.name + "\u{0}" + row.currency)
            var total = byKey[key] ?? ConversionTotal(name: row.name, currency: row.currency)
            switch row.kind {
            case .direct:
                total.direct += row.conversions
                total.directValue += row.valueSum
            case .influenced:
                total.influenced += row.conversions
                total.influencedValue += row.valueSum
            case .unattributed:
                total.unattributed += row.conversions
                total.unattributedValue += row.valueSum
            }
            byKey[key] = total
        }
        return byKey.values.sorted { (Bytewise($0.name), Bytewise($0.currency)) < (Bytewise($1.name), Bytewise($1.currency)) }
    }
}
