import TapwireStore

/// The nearest double to a plain decimal as PostgreSQL prints a `numeric` (`-123.45678901234567890123`),
/// the same double `Double(String)` gives, without `strtod`'s multi-precision path.
///
/// The uplift sums (report_uplift_days.sql) are exact decimals of 20 places and about 25 digits:
/// `Double(String)` parsed them through glibc's `strtod`, whose arbitrary-precision arithmetic
/// for more than 19 digits was most of the uplift rows' cost (docs/reports.md, "What each report
/// reads, and what it costs"). Here the digits are an integer `I` below 10^38 (two 64-bit words)
/// and the decimal has `s` places, so its value is `I / 10^s = (I / 5^s) · 2^-s`. With `s` at most
/// 27, `5^s` fits in 64 bits: `I`, shifted left until the quotient has at least 56 bits, is divided
/// by `5^s` in integers, and the quotient's top 53 bits are rounded to nearest, ties to even, with
/// its lower bits and the division's remainder as the round and sticky bits. That is the correctly
/// rounded double, which is what `strtod` gives (IEEE 754 round to nearest). The power of two is
/// then exact: the results stay far from the subnormals and from overflow (2^-300 … 2^300).
///
/// A `numeric` read in binary (`PostgresNumeric`) takes the same path from its digits, with no
/// text in between (`double(_: PostgresNumeric)`).
///
/// Anything else (an exponent, `NaN`, more than 38 significant digits or 27 places, a bare `.`) goes
/// to `Double(String)` unchanged. `ExactDecimalTests` holds it to `Double(String)` bit for bit over
/// random decimals, ties and their neighbours.
enum ExactDecimal {
    /// 5^0 … 5^27, each below 2^64.
    static let powersOfFive: [UInt64] = {
        var powers: [UInt64] = [1]
        for _ in 1...27 { powers.append(powers[powers.count - 1] * 5) }
        return powers
    }()

    /// The nearest double to `text`, as `Double(text)` gives it (nil where it gives nil).
    static func double(_ text: String) -> Double? {
        if let value = fast(text) { return value }
        return Double(text)
    }

    /// 10^0 … 10^19.
    static let powersOfTen: [UInt64] = {
        var powers: [UInt64] = [1]
        for _ in 1...19 { powers.append(powers[powers.count - 1] * 10) }
        return powers
    }()

    /// The nearest double to a plain decimal, or nil where the fast path does not apply.
    static func fast(_ text: String) -> Double? {
        text.utf8.withContiguousStorageIfAvailable { fast(bytes: $0) } ?? nil
    }

    private static func fast(bytes: UnsafeBufferPointer<UInt8>) -> Double? {
        var index = 0
        let count = bytes.count
        var negative = false
        if index < count, bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+") {
            negative = bytes[index] == UInt8(ascii: "-")
            index += 1
        }
        // The digits, read 19 at a time into one word, each word then added to (high, low) · 10^19.
        // Past 38 digits (leading zeros included) the words may wrap: such input goes to strtod.
        var high: UInt64 = 0, low: UInt64 = 0
        var chunk: UInt64 = 0, chunkDigits = 0, digits = 0, integerDigits = -1
        func append() {
            let scale = powersOfTen[chunkDigits]
            let product = low.multipliedFullWidth(by: scale)
            let (sum, carry) = product.low.addingReportingOverflow(chunk)
            low = sum
            high = high &* scale &+ product.high &+ (carry ? 1 : 0)
        }
        while index < count {
            let byte = bytes[index]
            let digit = byte &- UInt8(ascii: "0")
            if digit < 10 {
                chunk = chunk &* 10 &+ UInt64(digit)
                chunkDigits += 1
                digits += 1
                if chunkDigits == 19 {
                    append()
                    (chunk, chunkDigits) = (0, 0)
                }
            } else if byte == UInt8(ascii: "."), integerDigits < 0, digits > 0 {
                integerDigits = digits
            } else {
                return nil
            }
            index += 1
        }
        if chunkDigits > 0 { append() }
        let places = integerDigits < 0 ? 0 : digits - integerDigits
        if digits == 0 || digits > 38 || integerDigits == digits || places > 27 { return nil }
        return nearest(negative: negative, high: high, low: low, places: places)
    }

    /// The nearest double to a `numeric` read in binary: the same double `double(numeric.text)`
    /// gives, from its digits as an integer (`PostgresNumeric.scaledInteger`) where that is below
    /// 10^38 and it has at most 27 places, else through its text.
    static func double(_ numeric: PostgresNumeric) -> Double {
        if numeric.scale <= 27, let (high, low) = numeric.scaledInteger {
            return nearest(negative: numeric.negative, high: high, low: low, places: numeric.scale)
        }
        return Double(numeric.text) ?? .nan
    }

    /// The nearest double to a `numeric` read in place (`BinaryQueryResult.scaledNumeric`), the
    /// same as `double(_: PostgresNumeric)`; nil past 10^38 or 27 places, which take that path.
    static func double(_ scaled: PostgresNumeric.Scaled) -> Double? {
        guard scaled.scale <= 27, let (high, low) = scaled.magnitude else { return nil }
        return nearest(negative: scaled.negative, high: high, low: low, places: scaled.scale)
    }

    /// The nearest double to `±(high, low) / 10^places`, (high, low) below 10^38, places at most 27.
    private static func nearest(negative: Bool, high: UInt64, low: UInt64, places: Int) -> Double {
        var (high, low) = (high, low)
        if high == 0 && low == 0 { return negative ? -0.0 : 0.0 }

        let divisor = powersOfFive[places]
        let divisorBits = 64 - divisor.leadingZeroBitCount
        let numeratorBits = high != 0 ? 128 - high.leadingZeroBitCount : 64 - low.leadingZeroBitCount
        // Shift so that the numerator has 56 + divisorBits bits (at most 120): the quotient then has
        // at least 56.
        let shift = max(0, 56 + divisorBits - numeratorBits)
        if shift >= 64 {
            high = low << (shift - 64)
            low = 0
        } else if shift > 0 {
            high = (high << shift) | (low >> (64 - shift))
            low <<= shift
        }
        let quotientHigh = high / divisor
        let (quotientLow, remainder) = divisor.dividingFullWidth((high: high % divisor, low: low))
        let sticky = remainder != 0

        let quotientBits = quotientHigh != 0 ? 128 - quotientHigh.leadingZeroBitCount : 64 - quotientLow.leadingZeroBitCount
        var drop = quotientBits - 53  // at least 3
        var mantissa: UInt64 = drop >= 64 ? quotientHigh >> (drop - 64) : (quotientLow >> drop) | (quotientHigh << (64 - drop))
        func bit(_ position: Int) -> Bool {
            position >= 64 ? (quotientHigh >> (position - 64)) & 1 == 1 : (quotientLow >> position) & 1 == 1
        }
        let roundBit = bit(drop - 1)
        let below = drop - 1  // the bits under the round bit: 0 ..< below
        let lowerBits: Bool
        if below >= 64 {
            lowerBits = quotientLow != 0 || quotientHigh & ((1 << (below - 64)) - 1) != 0
        } else {
            lowerBits = quotientLow & ((1 << below) - 1) != 0
        }
        if roundBit && (lowerBits || sticky || mantissa & 1 == 1) {
            mantissa += 1
            if mantissa == 1 << 53 {
                mantissa >>= 1
                drop += 1
            }
        }
        return Double(sign: negative ? .minus : .plus, exponent: drop - shift - places, significand: Double(mantissa))
    }
}
