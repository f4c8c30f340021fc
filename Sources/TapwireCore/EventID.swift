/// An event's identifier: a UUID, 128 bits kept as two words so that hashing, comparing and
/// encoding it for COPY costs nothing. Clients should send UUIDv7 (time-ordered) ids.
public struct EventID: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var high: UInt64
    public var low: UInt64

    public init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    public static func < (a: EventID, b: EventID) -> Bool { (a.high, a.low) < (b.high, b.low) }

    /// The UUID version nibble (7 for time-ordered ids).
    public var version: Int { Int((high >> 12) & 0xF) }

    /// Parses the canonical 8-4-4-4-12 hexadecimal form, in either case.
    public init?(_ text: String) {
        var copy = text
        guard let id = copy.withUTF8({ EventID.parse($0) }) else { return nil }
        self = id
    }

    public init?(bytes: UnsafeBufferPointer<UInt8>) {
        guard let id = EventID.parse(bytes) else { return nil }
        self = id
    }

    static func parse(_ s: UnsafeBufferPointer<UInt8>) -> EventID? {
        guard s.count == 36, s[8] == 45, s[13] == 45, s[18] == 45, s[23] == 45 else { return nil }
        var words: (UInt64, UInt64) = (0, 0)
        var nibbles = 0
        for index in 0..<36 where index != 8 && index != 13 && index != 18 && index != 23 {
            let c = s[index]
            let v: UInt8
            switch c {
            case 48...57: v = c - 48
            case 97...102: v = c - 87
            case 65...70: v = c - 55
            default: return nil
            }
            if nibbles < 16 { words.0 = words.0 << 4 | UInt64(v) } else { words.1 = words.1 << 4 | UInt64(v) }
            nibbles += 1
        }
        return EventID(high: words.0, low: words.1)
    }

    public var description: String {
        let hex = Array("0123456789abcdef".utf8)
        var out = [UInt8](repeating: 45, count: 36)
        var position = 0
        for nibble in 0..<32 {
            if position == 8 || position == 13 || position == 18 || position == 23 { position += 1 }
            let word = nibble < 16 ? high : low
            let shift = UInt64(60 - (nibble % 16) * 4)
            out[position] = hex[Int((word >> shift) & 0xF)]
            position += 1
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The 16 bytes in network order, as PostgreSQL's binary uuid format wants them.
    public func withBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        var big = (high.bigEndian, low.bigEndian)
        return try withUnsafeBytes(of: &big) { try body($0) }
    }

    /// A UUIDv7 (RFC 9562): 48 bits of Unix milliseconds, then random bits, so ids sort by time.
    public static func v7<G: RandomNumberGenerator>(at time: Timestamp, using generator: inout G) -> EventID {
        let millis = UInt64(max(0, time.microseconds / 1000)) & 0xFFFF_FFFF_FFFF
        let randA = generator.next() & 0xFFF
        let randB = generator.next() & 0x3FFF_FFFF_FFFF_FFFF
        return EventID(high: millis << 16 | 0x7000 | randA, low: 0x8000_0000_0000_0000 | randB)
    }

    public static func v7(at time: Timestamp) -> EventID {
        var generator = SystemRandomNumberGenerator()
        return v7(at: time, using: &generator)
    }
}

/// A small, fast, seedable generator (SplitMix64) for simulations and benchmarks that must be
/// reproducible for a given seed. Not for secrets: keys use `SystemRandomNumberGenerator`.
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
