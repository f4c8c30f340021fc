import TapwireCore

/// Values in PostgreSQL's binary send format, read back (the reverse of `BinaryValueWriter`).
///
/// The fixed-width readers take a `RawSpan`: a COPY row read in place hands its fields over as
/// spans (`CopyBinaryDecoder.Row`), so no pointer leaves the decoder's file; the `ArraySlice`
/// forms are the same readers over a slice's bytes.
enum BinaryValues {
    static func bigEndian(_ bytes: RawSpan) -> UInt64 {
        var value: UInt64 = 0
        for at in 0..<bytes.byteCount { value = value << 8 | UInt64(bytes.unsafeLoad(fromByteOffset: at, as: UInt8.self)) }
        return value
    }

    static func int16(_ bytes: RawSpan) throws(DatabaseError) -> Int16 {
        guard bytes.byteCount == 2 else { throw DatabaseError(.unexpectedResult, "an int2 of \(bytes.byteCount) bytes") }
        return Int16(bitPattern: UInt16(truncatingIfNeeded: bigEndian(bytes)))
    }

    static func int32(_ bytes: RawSpan) throws(DatabaseError) -> Int32 {
        guard bytes.byteCount == 4 else { throw DatabaseError(.unexpectedResult, "an int4 of \(bytes.byteCount) bytes") }
        return Int32(bitPattern: UInt32(bigEndian: bytes.unsafeLoadUnaligned(as: UInt32.self)))
    }

    static func int64(_ bytes: RawSpan) throws(DatabaseError) -> Int64 {
        guard bytes.byteCount == 8 else { throw DatabaseError(.unexpectedResult, "an int8 of \(bytes.byteCount) bytes") }
        return Int64(bitPattern: UInt64(bigEndian: bytes.unsafeLoadUnaligned(as: UInt64.self)))
    }

    static func bool(_ bytes: RawSpan) throws(DatabaseError) -> Bool {
        guard bytes.byteCount == 1 else { throw DatabaseError(.unexpectedResult, "a bool of \(bytes.byteCount) bytes") }
        return bytes.unsafeLoad(fromByteOffset: 0, as: UInt8.self) != 0
    }

    static func timestamp(_ bytes: RawSpan) throws(DatabaseError) -> Timestamp {
        Timestamp(microseconds: try int64(bytes) &+ PostgresEpoch.offsetMicroseconds)
    }

    static func bigEndian(_ bytes: ArraySlice<UInt8>) -> UInt64 { bigEndian(bytes.span.bytes) }
    static func int16(_ bytes: ArraySlice<UInt8>) throws(DatabaseError) -> Int16 { try int16(bytes.span.bytes) }
    static func int64(_ bytes: ArraySlice<UInt8>) throws(DatabaseError) -> Int64 { try int64(bytes.span.bytes) }
    static func bool(_ bytes: ArraySlice<UInt8>) throws(DatabaseError) -> Bool { try bool(bytes.span.bytes) }
    static func timestamp(_ bytes: ArraySlice<UInt8>) throws(DatabaseError) -> Timestamp { try timestamp(bytes.span.bytes) }

    static func text(_ bytes: ArraySlice<UInt8>) -> String { String(decoding: bytes, as: UTF8.self) }

    /// A one-dimensional array's elements (array_send's layout), each decoded by `element`;
    /// nil for NULL elements. The element type must be the one expected.
    static func array<T>(_ bytes: ArraySlice<UInt8>?, of type: BinaryArray.ElementType,
                         _ element: (ArraySlice<UInt8>) throws(DatabaseError) -> T) throws(DatabaseError) -> [T?] {
        var values: [T?] = []
        try forEachElement(bytes, of: type, reserve: { values.reserveCapacity($0) }) { (field) throws(DatabaseError) in
            values.append(try field.map { (bytes) throws(DatabaseError) in try element(bytes) })
        }
        return values
    }

    /// A smallint[] or bigint[] (`type`: `.int2`, `.int8`) without NULLs as Swift integers. Read
    /// byte by byte, with no slice or optional per element: a slice retains the buffer, and for
    /// the regression check's ~870k numbers those retains and releases were a fifth of the time.
    static func integerElements(_ bytes: ArraySlice<UInt8>?, of type: BinaryArray.ElementType = .int8) throws(DatabaseError) -> [Int] {
        let width: Int
        switch type {
        case .int2: width = 2
        case .int8: width = 8
        default: throw DatabaseError(.unexpectedResult, "a binary array of \(type) is not one of integers")
        }
        var cursor = try ArrayCursor(bytes)
        let count = try cursor.header(expecting: type)
        var values: [Int] = []
        values.reserveCapacity(count)
        for _ in 0..<count {
            guard try cursor.read(4) == UInt64(width) else {
                throw DatabaseError(.unexpectedResult, "an integer array with a NULL or malformed element")
            }
            let bits = try cursor.read(width)
            values.append(width == 8 ? Int(Int64(bitPattern: bits)) : Int(Int16(truncatingIfNeeded: bits)))
        }
        guard cursor.atEnd else { throw DatabaseError(.unexpectedResult, "a binary array with bytes after its elements") }
        return values
    }

    /// Walks a one-dimensional array in array_send's layout: header, then each element's
    /// bytes (nil for NULL), after telling `reserve` how many there are.
    private static func forEachElement(_ bytes: ArraySlice<UInt8>?, of type: BinaryArray.ElementType, reserve: (Int) -> Void,
                                       _ body: (ArraySlice<UInt8>?) throws(DatabaseError) -> Void) throws(DatabaseError) {
        var cursor = try ArrayCursor(bytes)
        let count = try cursor.header(expecting: type)
        reserve(count)
        for _ in 0..<count {
            let length = Int(Int32(bitPattern: UInt32(truncatingIfNeeded: try cursor.read(4))))
            if length == -1 {
                try body(nil)
                continue
            }
            try body(try cursor.take(length))
        }
    }

    /// A read position in one array field (array_send's layout), big-endian integers read byte
    /// by byte.
    private struct ArrayCursor {
        let bytes: ArraySlice<UInt8>
        var at: Int

        init(_ bytes: ArraySlice<UInt8>?) throws(DatabaseError) {
            guard let bytes else { throw DatabaseError(.unexpectedResult, "a NULL array") }
            self.bytes = bytes
            at = bytes.startIndex
        }

        var atEnd: Bool { at == bytes.endIndex }

        mutating func read(_ size: Int) throws(DatabaseError) -> UInt64 {
            guard at + size <= bytes.endIndex else { throw DatabaseError(.unexpectedResult, "a binary array ends early") }
            var value: UInt64 = 0
            for i in at..<at + size { value = value << 8 | UInt64(bytes[i]) }
            at += size
            return value
        }

        mutating func take(_ length: Int) throws(DatabaseError) -> ArraySlice<UInt8> {
            guard length >= 0, at + length <= bytes.endIndex else {
                throw DatabaseError(.unexpectedResult, "a binary array element runs past its array")
            }
            defer { at += length }
            return bytes[at..<at + length]
        }

        /// Reads the header of a one-dimensional array of `type` (or an empty one); returns how
        /// many elements follow.
        mutating func header(expecting type: BinaryArray.ElementType) throws(DatabaseError) -> Int {
            let dimensions = try read(4)
            _ = try read(4) // has-nulls flag
            guard try read(4) == UInt64(type.rawValue) else {
                throw DatabaseError(.unexpectedResult, "a binary array of another element type than \(type)")
            }
            if dimensions == 0 { return 0 }
            guard dimensions == 1 else { throw DatabaseError(.unexpectedResult, "a binary array of \(dimensions) dimensions") }
            let count = Int(Int32(bitPattern: UInt32(truncatingIfNeeded: try read(4))))
            guard count >= 0 else { throw DatabaseError(.unexpectedResult, "a binary array of \(count) elements") }
            _ = try read(4) // lower bound
            return count
        }
    }
}
