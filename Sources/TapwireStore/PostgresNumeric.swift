/// A `numeric` as PostgreSQL sends it in binary (numeric_send): a sign, base-10000 digits, the
/// weight of the first digit (its power of 10000) and the display scale (the decimal places the
/// text form prints). Decoded once, from the bytes of a binary result (`BinaryQueryResult`), it
/// gives the text PostgreSQL prints for the same value (`text`, get_str_from_var's rules) and the
/// value times 10^scale as an integer when that fits below 10^38 (`scaledInteger`), which the
/// report turns into the nearest double without going through text (ExactDecimal).
///
/// NaN and ±Infinity are refused (`DatabaseError.unexpectedResult`): no sum a report reads is one.
/// `PostgresNumericTests` holds `text` to PostgreSQL's own output over random values.
public struct PostgresNumeric: Sendable, Equatable {
    public let negative: Bool
    /// The power of 10000 of `digits[0]`.
    public let weight: Int
    /// The decimal places of the text form (dscale).
    public let scale: Int
    /// Base-10000 digits, most significant first, each 0…9999.
    public let digits: [UInt16]

    static let positiveSign: UInt16 = 0x0000, negativeSign: UInt16 = 0x4000, nanSign: UInt16 = 0xC000
    static let positiveInfinitySign: UInt16 = 0xD000, negativeInfinitySign: UInt16 = 0xF000

    /// Decodes numeric_send's layout: int16 ndigits, int16 weight, uint16 sign, int16 dscale, then
    /// ndigits int16 digits.
    public init(binary bytes: ArraySlice<UInt8>) throws(DatabaseError) {
        let start = bytes.startIndex
        func word(_ at: Int) -> UInt16 { UInt16(bytes[start + at]) << 8 | UInt16(bytes[start + at + 1]) }
        let header: Header
        switch Self.header(length: bytes.count, word: word) {
        case .success(let checked): header = checked
        case .failure(let problem): throw problem.error
        }
        var digits: [UInt16] = []
        digits.reserveCapacity(header.count)
        for i in 0..<header.count {
            let digit = word(8 + 2 * i)
            guard digit < 10_000 else { throw Self.badDigit(digit) }
            digits.append(digit)
        }
        self.init(negative: header.negative, weight: header.weight, scale: header.scale, digits: digits)
    }

    /// numeric_send's first four words, checked against the field's length: NaN, ±Infinity and
    /// malformed bytes are a `Problem` (a small value, so the check costs the in-place read little).
    /// `word(at)` is the big-endian word at byte `at`.
    struct Header {
        let count: Int, weight: Int, negative: Bool, scale: Int
    }

    enum Problem: Error {
        case short(Int), nan, infinite, sign(UInt16), malformed(count: Int, length: Int)

        var error: DatabaseError {
            switch self {
            case .short(let length): return DatabaseError(.unexpectedResult, "a numeric of \(length) bytes")
            case .nan: return DatabaseError(.unexpectedResult, "a numeric NaN")
            case .infinite: return DatabaseError(.unexpectedResult, "an infinite numeric")
            case .sign(let sign): return DatabaseError(.unexpectedResult, "a numeric of unknown sign \(sign)")
            case .malformed(let count, let length):
                return DatabaseError(.unexpectedResult, "a malformed numeric (\(count) digits in \(length) bytes)")
            }
        }
    }

    static func header(length: Int, word: (Int) -> UInt16) -> Result<Header, Problem> {
        guard length >= 8 else { return .failure(.short(length)) }
        let count = Int(Int16(bitPattern: word(0)))
        let sign = word(4)
        switch sign {
        case positiveSign, negativeSign: break
        case nanSign: return .failure(.nan)
        case positiveInfinitySign, negativeInfinitySign: return .failure(.infinite)
        default: return .failure(.sign(sign))
        }
        let scale = Int(Int16(bitPattern: word(6)))
        guard count >= 0, scale >= 0, length == 8 + 2 * count else { return .failure(.malformed(count: count, length: length)) }
        return .success(Header(count: count, weight: Int(Int16(bitPattern: word(2))), negative: sign == negativeSign, scale: scale))
    }

    static func badDigit(_ digit: UInt16) -> DatabaseError { DatabaseError(.unexpectedResult, "a numeric digit of \(digit)") }

    /// A numeric's sign, display scale and |value| · 10^scale: what a report's sum needs
    /// (ExactDecimal), read where the field's bytes lie (`BinaryQueryResult.scaledNumeric`) with no
    /// digits array, whose allocation per value was most of the uplift rows' decoding
    /// (docs/reports.md, "Rows read in binary").
    public struct Scaled: Sendable {
        public let negative: Bool
        public let scale: Int
        /// |value| · 10^scale, or nil when it is 10^38 or more (as `scaledInteger`).
        public let magnitude: (high: UInt64, low: UInt64)?

        /// The value as an integer when it has no places and fits in 64 bits (a sum of bigints).
        public var int64: Int64? { PostgresNumeric.int64(negative: negative, scale: scale, magnitude: magnitude) }
    }

    /// The numeric whose numeric_send bytes are `bytes[start ..< start + length]`, as `Scaled`;
    /// nil when they are not a finite numeric (NaN, ±Infinity, malformed: `init(binary:)` says which).
    /// It takes the result's whole buffer, not a slice of it, whose retain and release were most
    /// of a small read (as `BinaryQueryResult.fixed`); the buffer's pointer stays in this function,
    /// bounded by the precondition.
    static func scaled(_ bytes: [UInt8], start: Int, length: Int) -> Scaled? {
        precondition(start >= 0 && length >= 0 && start + length <= bytes.count, "a numeric field outside its result")
        return bytes.withUnsafeBufferPointer { buffer -> Scaled? in
            func word(_ at: Int) -> UInt16 { UInt16(buffer[start + at]) << 8 | UInt16(buffer[start + at + 1]) }
            guard case .success(let header) = header(length: length, word: word) else { return nil }
            for i in 0..<header.count where word(8 + 2 * i) >= 10_000 { return nil }
            let magnitude = scaledInteger(weight: header.weight, scale: header.scale) { index in
                index >= 0 && index < header.count ? word(8 + 2 * index) : 0
            }
            return Scaled(negative: header.negative, scale: header.scale, magnitude: magnitude)
        }
    }

    public init(negative: Bool, weight: Int, scale: Int, digits: [UInt16]) {
        (self.negative, self.weight, self.scale, self.digits) = (negative, weight, scale, digits)
    }

    private func digit(_ index: Int) -> UInt16 { index >= 0 && index < digits.count ? digits[index] : 0 }

    /// The text PostgreSQL prints (numeric_out): `-`, the integer part without leading zeros (`0`
    /// when below one), and `scale` places, digits past the scale cut off as it cuts them.
    public var text: String {
        var out: [UInt8] = []
        out.reserveCapacity(8 + 4 * max(weight + 1, 1) + scale)
        if negative { out.append(UInt8(ascii: "-")) }
        var d: Int
        if weight < 0 {
            d = weight + 1
            out.append(UInt8(ascii: "0"))
        } else {
            for index in 0...weight {
                var value = digit(index)
                var put = index > 0
                for power: UInt16 in [1000, 100, 10] {
                    let figure = value / power
                    value -= figure * power
                    put = put || figure > 0
                    if put { out.append(UInt8(ascii: "0") + UInt8(figure)) }
                }
                out.append(UInt8(ascii: "0") + UInt8(value))
            }
            d = weight + 1
        }
        if scale > 0 {
            out.append(UInt8(ascii: "."))
            var places = 0
            while places < scale {
                var value = digit(d)
                for power: UInt16 in [1000, 100, 10, 1] where places < scale {
                    let figure = value / power
                    value -= figure * power
                    out.append(UInt8(ascii: "0") + UInt8(figure))
                    places += 1
                }
                d += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// |value| · 10^scale as a 128-bit integer, digits past the scale cut off (as `text` cuts
    /// them), or nil when it is 10^38 or more.
    public var scaledInteger: (high: UInt64, low: UInt64)? { Self.scaledInteger(weight: weight, scale: scale, digit: digit) }

    /// `scaledInteger` of the digits `digit(index)` gives (0 outside them): one computation for
    /// the decoded numeric and for the bytes read in place (`scaled`).
    @inline(__always)
    static func scaledInteger(weight: Int, scale: Int, digit: (Int) -> UInt16) -> (high: UInt64, low: UInt64)? {
        // The groups up to the one holding the last place, read as one integer, then the 0…3
        // places of that group past the scale dropped.
        let groupsAfterPoint = (scale + 3) / 4
        let last = weight + groupsAfterPoint
        var high: UInt64 = 0, low: UInt64 = 0
        if last >= 0 {
            for index in 0...last {
                let product = low.multipliedFullWidth(by: 10_000)
                let (sum, carry) = product.low.addingReportingOverflow(UInt64(digit(index)))
                let (top, overflow) = high.multipliedReportingOverflow(by: 10_000)
                let (raised, overflow2) = top.addingReportingOverflow(product.high &+ (carry ? 1 : 0))
                if overflow || overflow2 { return nil }
                (high, low) = (raised, sum)
            }
        }
        let drop = 4 * groupsAfterPoint - scale
        if drop > 0 {
            let divisor: UInt64 = drop == 1 ? 10 : drop == 2 ? 100 : 1000
            let quotientHigh = high / divisor
            let (quotientLow, _) = divisor.dividingFullWidth((high: high % divisor, low: low))
            (high, low) = (quotientHigh, quotientLow)
        }
        // 10^38 = 0x4B3B4CA85A86C47A_098A224000000000.
        let limitHigh: UInt64 = 0x4B3B_4CA8_5A86_C47A, limitLow: UInt64 = 0x098A_2240_0000_0000
        guard high < limitHigh || (high == limitHigh && low < limitLow) else { return nil }
        return (high, low)
    }

    /// The value as an integer when it has no places and fits in 64 bits (a sum of bigints).
    public var int64: Int64? { Self.int64(negative: negative, scale: scale, magnitude: scaledInteger) }

    static func int64(negative: Bool, scale: Int, magnitude: (high: UInt64, low: UInt64)?) -> Int64? {
        guard scale == 0, let (high, low) = magnitude, high == 0 else { return nil }
        if negative {
            return low <= UInt64(Int64.max) + 1 ? Int64(truncatingIfNeeded: 0 &- low) : nil
        }
        return low <= UInt64(Int64.max) ? Int64(low) : nil
    }
}
