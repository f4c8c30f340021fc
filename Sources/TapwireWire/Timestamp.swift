/// A point in time as microseconds since 1970-01-01T00:00:00Z: PostgreSQL's resolution, and
/// cheap to compare, subtract and encode, unlike `Date`'s floating-point seconds.
public struct Timestamp: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var microseconds: Int64

    public init(microseconds: Int64) { self.microseconds = microseconds }

    public init(seconds: Double) { self.microseconds = Int64((seconds * 1_000_000).rounded()) }

    public static func < (lhs: Timestamp, rhs: Timestamp) -> Bool { lhs.microseconds < rhs.microseconds }

    public var secondsSince1970: Double { Double(microseconds) / 1_000_000 }

    public func adding(microseconds delta: Int64) -> Timestamp { Timestamp(microseconds: microseconds &+ delta) }
    public func adding(seconds delta: Double) -> Timestamp { adding(microseconds: Int64(delta * 1_000_000)) }

    /// Whole UTC days since 1970-01-01 (negative before it).
    public var utcDay: Int64 {
        let perDay: Int64 = 86_400_000_000
        return microseconds >= 0 ? microseconds / perDay : -((-microseconds + perDay - 1) / perDay)
    }

    public static func startOfUTCDay(_ day: Int64) -> Timestamp { Timestamp(microseconds: day * 86_400_000_000) }

    /// ISO 8601 in UTC with millisecond precision, as the wire format and reports use it.
    public var description: String { iso8601(fractionDigits: 3) }

    public func iso8601(fractionDigits: Int = 3) -> String {
        let perSecond: Int64 = 1_000_000
        var seconds = microseconds / perSecond
        var micros = microseconds % perSecond
        if micros < 0 { micros += perSecond; seconds -= 1 }
        let days = seconds >= 0 ? seconds / 86_400 : -((-seconds + 86_399) / 86_400)
        let secondOfDay = seconds - days * 86_400
        let (year, month, day) = CivilCalendar.civil(fromDays: days)
        var out = ""
        out.reserveCapacity(30)
        out += Self.pad(year, 4) + "-" + Self.pad(Int64(month), 2) + "-" + Self.pad(Int64(day), 2)
        out += "T" + Self.pad(secondOfDay / 3600, 2) + ":" + Self.pad(secondOfDay / 60 % 60, 2) + ":" + Self.pad(secondOfDay % 60, 2)
        if fractionDigits > 0 {
            let digits = min(fractionDigits, 6)
            var fraction = micros
            for _ in digits..<6 { fraction /= 10 }
            out += "." + Self.pad(fraction, digits)
        }
        return out + "Z"
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let text = String(value < 0 ? -value : value)
        let padded = text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
        return value < 0 ? "-" + padded : padded
    }
}

extension Timestamp {
    /// Parses ISO 8601 / RFC 3339: `2026-12-01T10:00:05.120Z`, `…+02:00`, `…+0200`, a space for `T`,
    /// or a bare date `2026-12-01` (midnight UTC). A time with no offset is taken as UTC.
    /// Returns nil for anything else, including out-of-range fields such as month 13 or hour 24.
    public init?(iso8601 text: String) {
        var copy = text
        guard let value = copy.withUTF8({ Timestamp.parse($0) }) else { return nil }
        self = value
    }

    public init?(iso8601Bytes bytes: UnsafeBufferPointer<UInt8>) {
        guard let value = Timestamp.parse(bytes) else { return nil }
        self = value
    }

    static func parse(_ s: UnsafeBufferPointer<UInt8>) -> Timestamp? {
        var i = 0
        let n = s.count
        func digits(_ count: Int) -> Int64? {
            guard i + count <= n else { return nil }
            var value: Int64 = 0
            for k in 0..<count {
                let c = s[i + k]
                guard c >= 48, c <= 57 else { return nil }
                value = value * 10 + Int64(c - 48)
            }
            i += count
            return value
        }
        func expect(_ c: UInt8) -> Bool {
            guard i < n, s[i] == c else { return false }
            i += 1
            return true
        }
        guard let year = digits(4), expect(45), let month = digits(2), expect(45), let day = digits(2) else { return nil }
        guard (1...12).contains(month), day >= 1, day <= CivilCalendar.daysInMonth(year: year, month: Int(month)) else { return nil }
        let days = CivilCalendar.days(fromYear: year, month: Int(month), day: Int(day))
        if i == n { return Timestamp(microseconds: days * 86_400_000_000) }
        guard i < n, s[i] == 84 || s[i] == 116 || s[i] == 32 else { return nil } // T, t, space
        i += 1
        guard let hour = digits(2), expect(58), let minute = digits(2), expect(58), let second = digits(2) else { return nil }
        guard hour < 24, minute < 60, second < 61 else { return nil } // 60: a leap second, folded into the next
        var micros: Int64 = 0
        if i < n, s[i] == 46 || s[i] == 44 { // . or ,
            i += 1
            var count = 0
            while i < n, s[i] >= 48, s[i] <= 57 {
                if count < 6 { micros = micros * 10 + Int64(s[i] - 48) }
                count += 1
                i += 1
            }
            guard count > 0, count <= 9 else { return nil }
            for _ in min(count, 6)..<6 { micros *= 10 }
        }
        var offsetSeconds: Int64 = 0
        if i < n {
            let c = s[i]
            if c == 90 || c == 122 { // Z, z
                i += 1
            } else if c == 43 || c == 45 { // + or -
                i += 1
                guard let oh = digits(2) else { return nil }
                _ = expect(58)
                guard let om = digits(2), oh < 24, om < 60 else { return nil }
                offsetSeconds = (oh * 3600 + om * 60) * (c == 45 ? -1 : 1)
            } else {
                return nil
            }
        }
        guard i == n else { return nil }
        let total = days * 86_400 + hour * 3600 + minute * 60 + second - offsetSeconds
        return Timestamp(microseconds: total * 1_000_000 + micros)
    }
}

extension String {
    init(format4 value: Int64) {
        let text = String(value)
        self = text.count >= 4 ? text : String(repeating: "0", count: 4 - text.count) + text
    }
}
