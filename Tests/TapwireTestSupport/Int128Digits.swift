/// A 128-bit integer's decimal digits, written independently of the product's decoders, for the
/// tests that hold exact decimals (binary numerics, ExactDecimal) to PostgreSQL's own text.
public enum Int128Digits {
    /// The decimal digits of the unsigned 128-bit integer (high, low).
    public static func decimal(_ high: UInt64, _ low: UInt64) -> String {
        var (high, low) = (high, low)
        var out: [UInt8] = []
        repeat {
            let upper = high / 10
            let (lower, remainder) = UInt64(10).dividingFullWidth((high: high % 10, low: low))
            out.append(UInt8(ascii: "0") + UInt8(remainder))
            (high, low) = (upper, lower)
        } while high != 0 || low != 0
        return String(decoding: out.reversed(), as: UTF8.self)
    }
}
