/// Reads PostgreSQL's binary COPY format, as `COPY … TO STDOUT (FORMAT binary)` sends it: the
/// reverse of `CopyBinaryEncoder`, for the fold, which reads back the deltas commits appended.
/// It takes the data in pieces as they arrive, so a reader holds one row at a time, not the
/// whole COPY.
struct CopyBinaryDecoder {
    private var buffer: [UInt8] = []
    private var offset = 0
    private var headerRead = false
    /// True once the trailer has been read: the COPY's data is complete.
    private(set) var finished = false

    mutating func append(_ bytes: [UInt8]) {
        if offset > 0, offset >= buffer.count / 2 {
            buffer.removeFirst(offset)
            offset = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// The next row's fields (nil for NULL), or nil when the data so far holds no whole row
    /// (append more) or the trailer was read (`finished`).
    mutating func nextRow() throws(DatabaseError) -> [ArraySlice<UInt8>?]? {
        if finished { throw DatabaseError(.unexpectedResult, "binary COPY data after its trailer") }
        if !headerRead {
            let signature: [UInt8] = [0x50, 0x47, 0x43, 0x4F, 0x50, 0x59, 0x0A, 0xFF, 0x0D, 0x0A, 0x00]
            guard buffer.count - offset >= 19 else { return nil }
            guard Array(buffer[offset..<offset + 11]) == signature else {
                throw DatabaseError(.unexpectedResult, "COPY data does not start with the binary COPY signature")
            }
            let extensionLength = Int(Int32(bitPattern: UInt32(truncatingIfNeeded: BinaryValues.bigEndian(buffer[offset + 15..<offset + 19]))))
            guard extensionLength >= 0 else { throw DatabaseError(.unexpectedResult, "a negative binary COPY header extension") }
            guard buffer.count - offset >= 19 + extensionLength else { return nil }
            offset += 19 + extensionLength
            headerRead = true
        }
        var at = offset
        func take(_ size: Int) -> ArraySlice<UInt8>? {
            guard buffer.count - at >= size else { return nil }
            defer { at += size }
            return buffer[at..<at + size]
        }
        guard let countBytes = take(2) else { return nil }
        let count = Int16(bitPattern: UInt16(truncatingIfNeeded: BinaryValues.bigEndian(countBytes)))
        if count == -1 {
            offset = at
            finished = true
            return nil
        }
        guard count >= 0 else { throw DatabaseError(.unexpectedResult, "a binary COPY row of \(count) fields") }
        var fields: [ArraySlice<UInt8>?] = []
        fields.reserveCapacity(Int(count))
        for _ in 0..<count {
            guard let lengthBytes = take(4) else { return nil }
            let length = Int(Int32(bitPattern: UInt32(truncatingIfNeeded: BinaryValues.bigEndian(lengthBytes))))
            if length == -1 {
                fields.append(nil)
                continue
            }
            guard length >= 0 else { throw DatabaseError(.unexpectedResult, "a binary COPY field of \(length) bytes") }
            guard let field = take(length) else { return nil }
            fields.append(field)
        }
        offset = at
        return fields
    }
}
