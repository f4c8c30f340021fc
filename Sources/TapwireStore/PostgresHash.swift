/// PostgreSQL's hash_bytes_extended with seed 0 (src/common/hashfn.c: Bob Jenkins' lookup3),
/// which hashtextextended(text, 0) applies to a text's bytes under a deterministic collation. Only
/// what the collector must compute as the database does: the attribution part of an id.
enum PostgresHash {
    static func textExtended(_ text: String) -> UInt64 {
        var text = text
        return text.withUTF8 { bytesExtended($0) }
    }

    private static func bytesExtended(_ k: UnsafeBufferPointer<UInt8>) -> UInt64 {
        var a: UInt32 = 0x9e37_79b9 &+ UInt32(truncatingIfNeeded: k.count) &+ 3_923_095
        var b = a, c = a
        // Little-endian words (PostgreSQL's aligned and unaligned paths agree on them); past
        // the end, zeros, which add nothing.
        func word(_ i: Int) -> UInt32 {
            var w: UInt32 = 0
            for j in 0..<4 where i + j < k.count { w |= UInt32(k[i + j]) << (8 * UInt32(j)) }
            return w
        }
        var at = 0
        while k.count - at >= 12 {
            a = a &+ word(at)
            b = b &+ word(at + 4)
            c = c &+ word(at + 8)
            mix(&a, &b, &c)
            at += 12
        }
        // The last 11 bytes at most; the lowest byte of c is left for the length.
        let left = k.count - at
        if left >= 9 { c = c &+ word(at + 8) << 8 }
        if left >= 5 { b = b &+ word(at + 4) }
        if left >= 1 { a = a &+ word(at) }
        final(&a, &b, &c)
        return UInt64(b) << 32 | UInt64(c)
    }

    private static func rot(_ x: UInt32, _ k: UInt32) -> UInt32 { x << k | x >> (32 - k) }

    private static func mix(_ a: inout UInt32, _ b: inout UInt32, _ c: inout UInt32) {
        a = a &- c; a ^= rot(c, 4); c = c &+ b
        b = b &- a; b ^= rot(a, 6); a = a &+ c
        c = c &- b; c ^= rot(b, 8); b = b &+ a
        a = a &- c; a ^= rot(c, 16); c = c &+ b
        b = b &- a; b ^= rot(a, 19); a = a &+ c
        c = c &- b; c ^= rot(b, 4); b = b &+ a
    }

    private static func final(_ a: inout UInt32, _ b: inout UInt32, _ c: inout UInt32) {
        c ^= b; c = c &- rot(b, 14)
        a ^= c; a = a &- rot(c, 11)
        b ^= a; b = b &- rot(a, 25)
        c ^= b; c = c &- rot(b, 16)
        a ^= c; a = a &- rot(c, 4)
        b ^= a; b = b &- rot(a, 14)
        c ^= b; c = c &- rot(b, 24)
    }
}
