import TapwireCore
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

    /// The last row `advance` found: each field's start in `buffer` and its length (-1: NULL),
    /// one after the other; reused from row to row, so reading a row allocates nothing.
    private var spans: [Int] = []

    /// The next row's fields (nil for NULL), or nil when the data so far holds no whole row
    /// (append more) or the trailer was read (`finished`).
    mutating func nextRow() throws(DatabaseError) -> [ArraySlice<UInt8>?]? {
        guard let count = try advance() else { return nil }
        return (0..<count).map { spans[2 * $0 + 1] < 0 ? nil : buffer[spans[2 * $0]..<spans[2 * $0] + spans[2 * $0 + 1]] }
    }

    /// Moves to the next row and returns its number of fields (read them with `withRow`), or nil
    /// when the data so far holds no whole row (append more) or the trailer was read (`finished`).
    mutating func advance() throws(DatabaseError) -> Int? {
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
        spans.removeAll(keepingCapacity: true)
        // withUnsafeBytes rethrows untyped errors: the scan's comes back as a Result.
        let scanned = try buffer.withUnsafeBytes { (bytes) -> Result<(count: Int, end: Int)?, DatabaseError> in Result { () throws(DatabaseError) -> (count: Int, end: Int)? in
            var at = offset
            // A field count (2 bytes) or a length (4), big-endian, as unsigned bits.
            func integer(_ size: Int) -> Int? {
                guard bytes.count - at >= size else { return nil }
                defer { at += size }
                return size == 2 ? Int(UInt16(bigEndian: bytes.loadUnaligned(fromByteOffset: at, as: UInt16.self)))
                                 : Int(UInt32(bigEndian: bytes.loadUnaligned(fromByteOffset: at, as: UInt32.self)))
            }
            guard let countBits = integer(2) else { return nil }
            let count = Int(Int16(truncatingIfNeeded: countBits))
            if count == -1 { return (-1, at) }
            guard count >= 0 else { throw DatabaseError(.unexpectedResult, "a binary COPY row of \(count) fields") }
            for _ in 0..<count {
                guard let lengthBits = integer(4) else { return nil }
                let length = Int(Int32(truncatingIfNeeded: lengthBits))
                if length == -1 {
                    spans.append(at)
                    spans.append(-1)
                    continue
                }
                guard length >= 0 else { throw DatabaseError(.unexpectedResult, "a binary COPY field of \(length) bytes") }
                guard bytes.count - at >= length else { return nil }
                spans.append(at)
                spans.append(length)
                at += length
            }
            return (count, at)
        } }.get()
        guard let scanned else { return nil }
        offset = scanned.end
        if scanned.count == -1 {
            finished = true
            return nil
        }
        return scanned.count
    }

    /// The row `advance` moved to, read in place: valid only inside `body`.
    func withRow<R>(_ body: (Row) throws(DatabaseError) -> R) throws(DatabaseError) -> R {
        try buffer.withUnsafeBytes { (bytes) -> Result<R, DatabaseError> in
            spans.withUnsafeBufferPointer { (spans) in Result { () throws(DatabaseError) -> R in try body(Row(bytes: bytes, spans: spans)) } }
        }.get()
    }

    /// A row's fields as views of the decoder's buffer, read by type; the buffer's pointer stays
    /// in this file, and what leaves it is a value or a `RawSpan` that cannot outlive the call.
    struct Row {
        fileprivate let bytes: UnsafeRawBufferPointer
        fileprivate let spans: UnsafeBufferPointer<Int>

        /// Field `index`'s bytes, nil for NULL.
        private func field(_ index: Int) -> UnsafeRawBufferPointer? {
            let length = spans[2 * index + 1]
            guard length >= 0 else { return nil }
            return UnsafeRawBufferPointer(rebasing: bytes[spans[2 * index]..<spans[2 * index] + length])
        }

        func int32(_ index: Int) throws(DatabaseError) -> Int32? { try field(index).map { (f) throws(DatabaseError) in try BinaryValues.int32(f.bytes) } }
        func int64(_ index: Int) throws(DatabaseError) -> Int64? { try field(index).map { (f) throws(DatabaseError) in try BinaryValues.int64(f.bytes) } }
        func bool(_ index: Int) throws(DatabaseError) -> Bool? { try field(index).map { (f) throws(DatabaseError) in try BinaryValues.bool(f.bytes) } }
        func timestamp(_ index: Int) throws(DatabaseError) -> Timestamp? {
            try field(index).map { (f) throws(DatabaseError) in try BinaryValues.timestamp(f.bytes) }
        }

        /// Field `index`'s text as its id in `deltas` (`RollupDeltas.textId`), nil for NULL.
        func textId<Text>(_ index: Int, in deltas: inout RollupTally<Text>) -> Int32? {
            guard let field = field(index) else { return nil }
            return deltas.textId(field.bytes)
        }

        /// Field `index`'s text as its id in `deltas`, NULL read as the empty text (a campaign
        /// or variant, as `RollupDeltas.add(Event)` counts them).
        func textIdOrEmpty<Text>(_ index: Int, in deltas: inout RollupTally<Text>) -> Int32 {
            deltas.textId((field(index) ?? UnsafeRawBufferPointer(start: nil, count: 0)).bytes)
        }
    }
}
