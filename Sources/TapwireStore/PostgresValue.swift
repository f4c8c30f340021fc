import TapwireCore

/// Text-format encodings of parameter values (they travel as parameters, never inside SQL).
package enum PostgresValue {
    /// A text[] literal: every element double-quoted, with `"` and `\` escaped.
    package static func textArray(_ values: [String]) -> String { textArray(values.map { Optional($0) }) }

    /// A text[] literal whose nil elements are SQL NULLs: each element quoted, its `"` and `\`
    /// escaped with a `\`. Written byte by byte into one buffer (both are ASCII, and no byte of a
    /// multi-byte UTF-8 character is ASCII, so escaping bytes escapes the same characters): a
    /// report writes a few arrays of days and, for a real app, of 40 versions, and appending each
    /// Unicode scalar to a `String` was about 5 % of a report's instructions (docs/reports.md,
    /// "Issue 33's ratio at 2M events").
    package static func textArray(_ values: [String?]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(values.reduce(2) { $0 + ($1?.utf8.count ?? 4) + 3 })
        out.append(UInt8(ascii: "{"))
        for (i, element) in values.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            guard let value = element else {
                out.append(contentsOf: "NULL".utf8)
                continue
            }
            out.append(UInt8(ascii: "\""))
            for byte in value.utf8 {
                if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { out.append(UInt8(ascii: "\\")) }
                out.append(byte)
            }
            out.append(UInt8(ascii: "\""))
        }
        out.append(UInt8(ascii: "}"))
        return String(decoding: out, as: UTF8.self)
    }

    /// An int[] or bigint[] literal ({1,2,3}): integers need no quoting.
    package static func intArray<T: BinaryInteger>(_ values: [T]) -> String {
        "{" + values.map { String($0) }.joined(separator: ",") + "}"
    }

    /// A timestamptz[] literal of instants (µs since 1970), each in ISO 8601 with an offset, so
    /// it reads back the same whatever the session's DateStyle and TimeZone.
    package static func timestampArray(_ microseconds: [Int64]) -> String {
        textArray(microseconds.map { Timestamp(microseconds: $0).iso8601(fractionDigits: 6) })
    }

    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 2)
        for b in bytes { out.append(digits[Int(b >> 4)]); out.append(digits[Int(b & 15)]) }
        return String(decoding: out, as: UTF8.self)
    }

    static func bytes(fromHex hex: String) -> [UInt8]? {
        let chars = Array(hex.utf8)
        guard chars.count % 2 == 0 else { return nil }
        func nibble(_ c: UInt8) -> UInt8? {
            switch c {
            case 48...57: return c - 48
            case 97...102: return c - 87
            case 65...70: return c - 55
            default: return nil
            }
        }
        var out: [UInt8] = []
        out.reserveCapacity(chars.count / 2)
        var i = 0
        while i < chars.count {
            guard let hi = nibble(chars[i]), let lo = nibble(chars[i + 1]) else { return nil }
            out.append(hi << 4 | lo)
            i += 2
        }
        return out
    }

    /// An instant a query returned as microseconds since the Unix epoch
    /// (`(extract(epoch FROM t) * 1000000)::bigint`): queries return instants this way, not as
    /// timestamptz text, whose form depends on the session's DateStyle and TimeZone (behind a
    /// transaction pooler, the server's).
    package static func timestamp(microseconds text: String?) -> Timestamp? {
        text.flatMap { Int64($0) }.map { Timestamp(microseconds: $0) }
    }

    /// Parses PostgreSQL's text output of a one-dimensional bigint[] without NULLs (`{1,0,23}`).
    static func int64Array(_ text: String?) -> [Int64]? {
        guard let text else { return nil }
        var out: [Int64] = []
        var value: Int64 = 0, negative = false, digits = 0
        var bytes = text.utf8.makeIterator()
        guard bytes.next() == UInt8(ascii: "{") else { return nil }
        while let b = bytes.next() {
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                let (product, overflow1) = value.multipliedReportingOverflow(by: 10)
                let (sum, overflow2) = product.addingReportingOverflow(Int64(b - UInt8(ascii: "0")))
                guard !overflow1, !overflow2 else { return nil }
                value = sum
                digits += 1
            case UInt8(ascii: "-") where digits == 0 && !negative:
                negative = true
            case UInt8(ascii: ","), UInt8(ascii: "}"):
                if digits > 0 {
                    out.append(negative ? -value : value)
                } else if b == UInt8(ascii: ",") || !out.isEmpty || negative {
                    return nil
                }
                if b == UInt8(ascii: "}") { return bytes.next() == nil ? out : nil }
                value = 0
                negative = false
                digits = 0
            default:
                return nil
            }
        }
        return nil
    }
}
