/// The rows of a query result in binary format (`PostgresConnection.query(_:_:binary:)`): each
/// field the bytes PostgreSQL's send function wrote, read here as the type its column has, with no
/// text in between. A report reads thousands of rows of twenty-odd integers and `numeric` sums;
/// as text each became a String and was parsed again (docs/reports.md, "Rows read in binary").
///
/// The fields are one buffer, copied out of the PGresult (no pointer leaves PostgresConnection);
/// a read names the column's type it accepts, and a field of another type is an
/// `unexpectedResult` error naming the column and the statement, never the value.
public struct BinaryQueryResult: Sendable {
    public let columns: [String]
    /// Each column's type OID (PQftype).
    let types: [UInt32]
    let bytes: [UInt8]
    /// Row-major, a field per column: where its bytes start in `bytes`, and their count (-1: NULL).
    let starts: [Int]
    let lengths: [Int32]
    public let rowCount: Int
    /// The statement that returned it (`SQL.name`), which a decoding error names.
    public var statement: String?

    init(columns: [String], types: [UInt32], bytes: [UInt8], starts: [Int], lengths: [Int32], rowCount: Int) {
        (self.columns, self.types, self.bytes, self.starts, self.lengths, self.rowCount) = (columns, types, bytes, starts, lengths, rowCount)
    }

    /// The type OIDs read here (pg_type.dat).
    enum TypeOID {
        static let bool: UInt32 = 16, int8: UInt32 = 20, int2: UInt32 = 21, int4: UInt32 = 23, text: UInt32 = 25
        static let float8: UInt32 = 701, bpchar: UInt32 = 1042, varchar: UInt32 = 1043, int2Array: UInt32 = 1005
        static let int8Array: UInt32 = 1016
        static let numeric: UInt32 = 1700
    }

    public func column(_ name: String) -> Int? { columns.firstIndex(of: name) }

    /// The position of column `name`, or an `unexpectedResult` error naming it.
    public func position(_ name: String) throws(DatabaseError) -> Int {
        guard let position = columns.firstIndex(of: name) else {
            throw DatabaseError(.unexpectedResult, "the result has no column \(name)", query: statement)
        }
        return position
    }

    /// The bytes of row `row`'s field in column `column`, nil for NULL.
    func field(_ row: Int, _ column: Int) -> ArraySlice<UInt8>? {
        let index = row * columns.count + column
        let length = Int(lengths[index])
        guard length >= 0 else { return nil }
        return bytes[starts[index]..<starts[index] + length]
    }

    public func isNull(_ row: Int, _ column: Int) -> Bool { lengths[row * columns.count + column] < 0 }

    /// A fixed-size field's big-endian bits, read in place (a slice retains the buffer, which was
    /// most of an integer's read), nil for NULL; a field of another length than `size` is an error.
    private func fixed(_ row: Int, _ column: Int, size: Int) throws(DatabaseError) -> UInt64? {
        let index = row * columns.count + column
        let length = Int(lengths[index])
        guard length >= 0 else { return nil }
        guard length == size else {
            throw DatabaseError(.unexpectedResult, "column \(columns[column]): a field of \(length) bytes, not \(size)", query: statement)
        }
        return bytes.withUnsafeBufferPointer { buffer in
            var value: UInt64 = 0
            for i in starts[index]..<starts[index] + size { value = value << 8 | UInt64(buffer[i]) }
            return value
        }
    }

    private func mismatch(_ column: Int, _ what: String) -> DatabaseError {
        DatabaseError(.unexpectedResult, "column \(columns[column]) (type \(types[column])) is not \(what)", query: statement)
    }

    private func named(_ error: DatabaseError, _ column: Int) -> DatabaseError {
        DatabaseError(error.code, "column \(columns[column]): \(error.message)", query: statement)
    }

    /// An integer column (smallint, integer, bigint, or a numeric without places such as a sum of
    /// bigints); nil for NULL. A numeric with places or beyond 64 bits is an `unexpectedResult`
    /// error, not nil: a caller that reads NULL as 0 would otherwise count it as 0 silently.
    public func integer(_ row: Int, _ column: Int) throws(DatabaseError) -> Int64? {
        let size: Int
        switch types[column] {
        case TypeOID.int8: size = 8
        case TypeOID.int4: size = 4
        case TypeOID.int2: size = 2
        case TypeOID.numeric:
            guard let scaled = try scaledNumeric(row, column) else { return nil }
            guard let value = scaled.int64 else { throw mismatch(column, "a 64-bit integer") }
            return value
        default: throw mismatch(column, "an integer")
        }
        guard let bits = try fixed(row, column, size: size) else { return nil }
        // Sign-extended from the field's width.
        let shift = UInt64(64 - 8 * size)
        return Int64(bitPattern: bits << shift) >> shift
    }

    public func bool(_ row: Int, _ column: Int) throws(DatabaseError) -> Bool? {
        guard types[column] == TypeOID.bool else { throw mismatch(column, "a boolean") }
        return try fixed(row, column, size: 1).map { $0 != 0 }
    }

    /// A text column (text, varchar, char), nil for NULL.
    public func text(_ row: Int, _ column: Int) throws(DatabaseError) -> String? {
        guard let field = field(row, column) else { return nil }
        switch types[column] {
        case TypeOID.text, TypeOID.varchar, TypeOID.bpchar: return BinaryValues.text(field)
        default: throw mismatch(column, "text")
        }
    }

    public func float8(_ row: Int, _ column: Int) throws(DatabaseError) -> Double? {
        guard let field = field(row, column) else { return nil }
        guard types[column] == TypeOID.float8, field.count == 8 else { throw mismatch(column, "a double precision") }
        return Double(bitPattern: BinaryValues.bigEndian(field))
    }

    public func numeric(_ row: Int, _ column: Int) throws(DatabaseError) -> PostgresNumeric? {
        guard let field = field(row, column) else { return nil }
        guard types[column] == TypeOID.numeric else { throw mismatch(column, "a numeric") }
        do throws(DatabaseError) { return try PostgresNumeric(binary: field) } catch { throw named(error, column) }
    }

    /// A numeric column's sign, places and scaled integer, read where its bytes lie
    /// (`PostgresNumeric.scaled`): no digits array per value, as `numeric` allocates. nil for NULL;
    /// NaN, ±Infinity and malformed bytes are the errors `numeric` names.
    public func scaledNumeric(_ row: Int, _ column: Int) throws(DatabaseError) -> PostgresNumeric.Scaled? {
        let index = row * columns.count + column
        let length = Int(lengths[index])
        guard length >= 0 else { return nil }
        guard types[column] == TypeOID.numeric else { throw mismatch(column, "a numeric") }
        if let scaled = PostgresNumeric.scaled(bytes, start: starts[index], length: length) { return scaled }
        // Not a finite numeric: the whole decoding says why.
        _ = try numeric(row, column)
        throw mismatch(column, "a finite numeric")
    }

    /// A smallint[] or bigint[] without NULL elements, nil for NULL (a histogram row's bins and
    /// counts: docs/reports.md, "Rows read in binary").
    public func integerArray(_ row: Int, _ column: Int) throws(DatabaseError) -> [Int]? {
        guard let field = field(row, column) else { return nil }
        let element: BinaryArray.ElementType
        switch types[column] {
        case TypeOID.int8Array: element = .int8
        case TypeOID.int2Array: element = .int2
        default: throw mismatch(column, "a smallint or bigint array")
        }
        do throws(DatabaseError) { return try BinaryValues.integerElements(field, of: element) } catch { throw named(error, column) }
    }
}
