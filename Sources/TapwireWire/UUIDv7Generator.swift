/// Makes UUIDv7s (RFC 9562, method 1: a 12-bit counter in rand_a) that strictly increase within a
/// process, even for many ids in one millisecond or when the wall clock steps back, so the
/// collector's dedup index sees sequential inserts.
public struct UUIDv7Generator: Sendable {
    private var lastMillis: UInt64 = 0
    private var counter: UInt64 = 0

    public init() {}

    public mutating func next<G: RandomNumberGenerator>(unixMilliseconds now: UInt64, using random: inout G) -> EventID {
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
        return EventID.v7(unixMilliseconds: millis, randA: counter, randB: random.next())
    }

    public mutating func next(unixMilliseconds now: UInt64) -> EventID {
        var random = SystemRandomNumberGenerator()
        return next(unixMilliseconds: now, using: &random)
    }
}
