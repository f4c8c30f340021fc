public enum UTF8Validation {
    /// True when the bytes are well-formed UTF-8 (no overlongs, no surrogates, at most U+10FFFF).
    public static func isValid(_ s: UnsafeBufferPointer<UInt8>) -> Bool {
        var i = 0
        let n = s.count
        while i < n {
            let c = s[i]
            if c < 0x80 { i += 1; continue }
            if c >= 0xC2, c <= 0xDF {
                guard i + 1 < n, s[i + 1] & 0xC0 == 0x80 else { return false }
                i += 2
            } else if c >= 0xE0, c <= 0xEF {
                guard i + 2 < n, s[i + 1] & 0xC0 == 0x80, s[i + 2] & 0xC0 == 0x80 else { return false }
                if c == 0xE0, s[i + 1] < 0xA0 { return false }
                if c == 0xED, s[i + 1] > 0x9F { return false }
                i += 3
            } else if c >= 0xF0, c <= 0xF4 {
                guard i + 3 < n, s[i + 1] & 0xC0 == 0x80, s[i + 2] & 0xC0 == 0x80, s[i + 3] & 0xC0 == 0x80 else { return false }
                if c == 0xF0, s[i + 1] < 0x90 { return false }
                if c == 0xF4, s[i + 1] > 0x8F { return false }
                i += 4
            } else {
                return false
            }
        }
        return true
    }

    public static func isValid(_ bytes: [UInt8]) -> Bool { bytes.withUnsafeBufferPointer { isValid($0) } }

    static func append(scalar: UInt32, to out: inout [UInt8]) {
        switch scalar {
        case 0..<0x80: out.append(UInt8(scalar))
        case 0x80..<0x800:
            out.append(UInt8(0xC0 | (scalar >> 6)))
            out.append(UInt8(0x80 | (scalar & 0x3F)))
        case 0x800..<0x10000:
            out.append(UInt8(0xE0 | (scalar >> 12)))
            out.append(UInt8(0x80 | ((scalar >> 6) & 0x3F)))
            out.append(UInt8(0x80 | (scalar & 0x3F)))
        default:
            out.append(UInt8(0xF0 | (scalar >> 18)))
            out.append(UInt8(0x80 | ((scalar >> 12) & 0x3F)))
            out.append(UInt8(0x80 | ((scalar >> 6) & 0x3F)))
            out.append(UInt8(0x80 | (scalar & 0x3F)))
        }
    }
}
