/// An event's id, a UUID kept as two words. The SDK makes UUIDv7s when an event is recorded, so a
/// retried batch carries the same ids and the collector recognises it.
public struct TelemetryEventID: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var high: UInt64
    public var low: UInt64

    public init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    public static func < (a: TelemetryEventID, b: TelemetryEventID) -> Bool { (a.high, a.low) < (b.high, b.low) }

    /// The version nibble: 7 for the ids this SDK makes.
    public var version: Int { Int((high >> 12) & 0xF) }
    /// The RFC 9562 variant bits (0b10).
    public var variant: Int { Int(low >> 62) }
    /// The Unix milliseconds a v7 id carries in its first 48 bits.
    public var unixMilliseconds: UInt64 { high >> 16 }

    /// Parses the canonical 8-4-4-4-12 form, in either case.
    public init?(_ text: String) {
        let bytes = Array(text.utf8)
        guard bytes.count == 36 else { return nil }
        var high: UInt64 = 0
        var low: UInt64 = 0
        var nibbles = 0
        for (index, c) in bytes.enumerated() {
            if index == 8 || index == 13 || index == 18 || index == 23 {
                guard c == UInt8(ascii: "-") else { return nil }
                continue
            }
            let v: UInt8
            switch c {
            case 48...57: v = c - 48
            case 97...102: v = c - 87
            case 65...70: v = c - 55
            default: return nil
            }
            if nibbles < 16 { high = high << 4 | UInt64(v) } else { low = low << 4 | UInt64(v) }
            nibbles += 1
        }
        self.init(high: high, low: low)
    }

    public var description: String {
        let hex = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(36)
        for nibble in 0..<32 {
            if nibble == 8 || nibble == 12 || nibble == 16 || nibble == 20 { out.append(UInt8(ascii: "-")) }
            let word = nibble < 16 ? high : low
            out.append(hex[Int((word >> UInt64(60 - (nibble % 16) * 4)) & 0xF)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The 16 bytes in network order (the queue stores ids this way).
    public var bytes: [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: high >> UInt64(56 - $0 * 8)) }
            + (0..<8).map { UInt8(truncatingIfNeeded: low >> UInt64(56 - $0 * 8)) }
    }

    public init?(bytes: some Collection<UInt8>) {
        guard bytes.count == 16 else { return nil }
        var high: UInt64 = 0
        var low: UInt64 = 0
        for (i, b) in bytes.enumerated() {
            if i < 8 { high = high << 8 | UInt64(b) } else { low = low << 8 | UInt64(b) }
        }
        self.init(high: high, low: low)
    }
}

/// Makes UUIDv7s (RFC 9562, method 1: a 12-bit counter in rand_a) that strictly increase within a
/// process, even for many ids in one millisecond or when the wall clock steps back, so the
/// collector's dedup index sees sequential inserts.
public struct UUIDv7Generator: Sendable {
    private var lastMillis: UInt64 = 0
    private var counter: UInt64 = 0

    public init() {}

    public mutating func next<G: RandomNumberGenerator>(unixMilliseconds now: UInt64, using random: inout G) -> TelemetryEventID {
        var millis = now & 0xFFFF_FFFF_FFFF
        if millis > lastMillis {
            // Seed the counter in the lower half so a burst has room to count up.
            counter = random.next() & 0x7FF
        } else {
            millis = lastMillis
            counter += 1
            if counter > 0xFFF {
                millis += 1
                counter = random.next() & 0x7FF
            }
        }
        lastMillis = millis
        let low = 0x8000_0000_0000_0000 | (random.next() & 0x3FFF_FFFF_FFFF_FFFF)
        return TelemetryEventID(high: millis << 16 | 0x7000 | counter, low: low)
    }

    public mutating func next(unixMilliseconds now: UInt64) -> TelemetryEventID {
        var random = SystemRandomNumberGenerator()
        return next(unixMilliseconds: now, using: &random)
    }
}
