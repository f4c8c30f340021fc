/// Builds PostgreSQL's binary COPY format ("PGCOPY\n\377\r\n\0", then tuples of
/// length-prefixed fields). Binary means no escaping at all: a tab, a backslash or a `\.` line
/// in a category travels as its bytes, and the server does no text parsing.
struct CopyBinaryEncoder: BinaryValueWriter {
    var bytes: [UInt8]

    init(reservingCapacity capacity: Int = 1 << 16) {
        bytes = []
        bytes.reserveCapacity(capacity)
        bytes.append(contentsOf: [0x50, 0x47, 0x43, 0x4F, 0x50, 0x59, 0x0A, 0xFF, 0x0D, 0x0A, 0x00]) // PGCOPY\n\377\r\n\0
        append32(0) // flags
        append32(0) // header extension length
    }

    mutating func didAppendValue(isNull: Bool) {}

    mutating func finish() -> [UInt8] {
        append16(0xFFFF) // trailer: field count -1
        return bytes
    }

    mutating func beginRow(fields: Int) { append16(UInt16(fields)) }
}
