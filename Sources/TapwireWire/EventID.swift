/// An event's identifier: a UUID, 128 bits kept as two words so that hashing, comparing and
/// encoding it for COPY costs nothing. The SDK makes UUIDv7s (time-ordered) when an event is
/// recorded, so a retried batch carries the same ids and the collector recognises it.
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
    /// The RFC 9562 variant bits (0b10).
    public var variant: Int { Int(low >> 62) }
    /// The Unix milliseconds a v7 id carries in its first 48 bits.
    public var unixMilliseconds: UInt64 { high >> 16 }

    /// Parses the canonical 8-4-4-4-12 hexadecimal form, in either case.
    public init?(_ text: String) {
        var copy = text
        guard let id = copy.withUTF8({ EventID.parse($0) }) else { return nil }
        self = id
    }

    /// Parses the canonical text form from UTF-8 bytes, without making a String.
    public init?(utf8 bytes: UnsafeBufferPointer<UInt8>) {
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

    /// The 16 bytes in network order, as an array (the SDK's queue stores ids this way).
    public var bytes: [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: high >> UInt64(56 - $0 * 8)) }
            + (0..<8).map { UInt8(truncatingIfNeeded: low >> UInt64(56 - $0 * 8)) }
    }

    /// The id from its 16 bytes in network order; nil for any other length.
    public init?(bytes: some Collection<UInt8>) {
        guard bytes.count == 16 else { return nil }
        var high: UInt64 = 0
        var low: UInt64 = 0
        for (i, b) in bytes.enumerated() {
            if i < 8 { high = high << 8 | UInt64(b) } else { low = low << 8 | UInt64(b) }
        }
        self.init(high: high, low: low)
    }

    /// The UUIDv7 layout (RFC 9562): 48 bits of Unix milliseconds, the version, 12 bits of
    /// `randA`, the variant, 62 bits of `randB`. Ids sort by their milliseconds first.
    static func v7(unixMilliseconds: UInt64, randA: UInt64, randB: UInt64) -> EventID {
        EventID(high: (unixMilliseconds & 0xFFFF_FFFF_FFFF) << 16 | 0x7000 | (randA & 0xFFF),
                low: 0x8000_0000_0000_0000 | (randB & 0x3FFF_FFFF_FFFF_FFFF))
    }

    /// A UUIDv7 with random bits after the time, so ids sort by time (within a millisecond, in
    /// no particular order: `UUIDv7Generator` makes strictly increasing ones).
    public static func v7<G: RandomNumberGenerator>(at time: Timestamp, using generator: inout G) -> EventID {
        let millis = UInt64(max(0, time.microseconds / 1000))
        let randA = generator.next()
        return v7(unixMilliseconds: millis, randA: randA, randB: generator.next())
    }

    public static func v7(at time: Timestamp) -> EventID {
        var generator = SystemRandomNumberGenerator()
        return v7(at: time, using: &generator)
    }
}
