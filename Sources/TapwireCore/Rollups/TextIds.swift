/// The distinct texts of a batch of events, each numbered the first time it is seen, so that
/// `RollupDeltas` tallies events by fixed-width keys of ids rather than by Strings: one lookup of
/// a field's bytes, and one String per distinct text, not per field of every event
/// (docs/benchmarks.md, "The day's texts as ids"). Texts are told apart by their UTF-8 bytes, as
/// PostgreSQL's deterministic collations tell them apart.
public struct TextIds: Sendable, Equatable {
    /// Every distinct text's bytes, one after the other; id i's end is `ends[i]`.
    private var bytes: [UInt8] = []
    private var ends: [Int] = []
    private var hashes: [UInt64] = []
    /// Open addressing over the ids (-1: empty); a power of two, never more than half full.
    private var slots: [Int32] = Array(repeating: -1, count: 64)
    /// Each id's text.
    public private(set) var strings: [String] = []

    /// '' is id 0 from the start, so that a key can name it without the table (`TextId.empty`).
    public init() { _ = id("") }

    public var count: Int { strings.count }

    /// The id of the text with these UTF-8 bytes, numbering it if it is new.
    public mutating func id(_ text: RawSpan) -> Int32 {
        text.withUnsafeBytes { id(bytes: $0) }
    }

    /// `id(_:)` over the bytes' pointer, which stays in this file.
    private mutating func id(bytes text: UnsafeRawBufferPointer) -> Int32 {
        let hash = Self.hash(text)
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: hash) & mask
        while true {
            let id = slots[slot]
            if id < 0 { break }
            if hashes[Int(id)] == hash, equals(Int(id), text) { return id }
            slot = (slot + 1) & mask
        }
        let id = Int32(strings.count)
        bytes.append(contentsOf: text)
        ends.append(bytes.count)
        hashes.append(hash)
        strings.append(String(decoding: text, as: UTF8.self))
        slots[slot] = id
        if strings.count * 2 > slots.count { grow() }
        return id
    }

    /// The UTF-8 bytes of id `id`'s text, as stored (the rebuild's COPY rows copy them from here).
    public func utf8(_ id: Int32) -> ArraySlice<UInt8> {
        let at = Int(id)
        return bytes[(at == 0 ? 0 : ends[at - 1])..<ends[at]]
    }

    /// The id of a String's text (its UTF-8 bytes).
    public mutating func id(_ text: String) -> Int32 {
        var text = text
        return text.withUTF8 { id(bytes: UnsafeRawBufferPointer($0)) }
    }

    private func equals(_ id: Int, _ text: UnsafeRawBufferPointer) -> Bool {
        let start = id == 0 ? 0 : ends[id - 1]
        guard ends[id] - start == text.count else { return false }
        return bytes.withUnsafeBytes { stored in
            // Eight bytes at a time: a generic elementsEqual cost more than the hash.
            var at = 0
            while at + 8 <= text.count {
                guard stored.loadUnaligned(fromByteOffset: start + at, as: UInt64.self) == text.loadUnaligned(fromByteOffset: at, as: UInt64.self) else { return false }
                at += 8
            }
            while at < text.count {
                guard stored[start + at] == text[at] else { return false }
                at += 1
            }
            return true
        }
    }

    private mutating func grow() {
        slots = Array(repeating: -1, count: slots.count * 2)
        let mask = slots.count - 1
        for (id, hash) in hashes.enumerated() {
            var slot = Int(truncatingIfNeeded: hash) & mask
            while slots[slot] >= 0 { slot = (slot + 1) & mask }
            slots[slot] = Int32(id)
        }
    }

    /// A multiplicative hash of the bytes eight at a time: the texts are short and come from
    /// the database, so no flooding to guard against here.
    private static func hash(_ text: UnsafeRawBufferPointer) -> UInt64 {
        var h: UInt64 = 0x9E37_79B9_7F4A_7C15 ^ UInt64(text.count)
        var at = 0
        while at + 8 <= text.count {
            h = (h ^ text.loadUnaligned(fromByteOffset: at, as: UInt64.self)) &* 0xFF51_AFD7_ED55_8CCD
            h ^= h >> 32
            at += 8
        }
        var tail: UInt64 = 0
        var shift: UInt64 = 0
        while at < text.count {
            tail |= UInt64(text[at]) << shift
            shift += 8
            at += 1
        }
        h = (h ^ tail) &* 0xC4CE_B9FE_1A85_EC53
        return h ^ (h >> 29)
    }
}
