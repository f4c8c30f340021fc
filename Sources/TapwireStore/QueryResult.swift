/// The rows of a query result in text format, as libpq returns them; stores decode them into
/// typed values where they read them (`decode`, `PostgresDecodable`).
public struct QueryResult: Sendable {
    public var columns: [String]
    public var rows: [[String?]]
    /// The row count of an INSERT/UPDATE/DELETE (PQcmdTuples), 0 otherwise.
    public var affectedRows: Int
    /// The statement that returned it (`SQL.name`), which a decoding error names.
    public var statement: String?

    public init(columns: [String], rows: [[String?]], affectedRows: Int, statement: String? = nil) {
        self.columns = columns
        self.rows = rows
        self.affectedRows = affectedRows
        self.statement = statement
    }

    public func column(_ name: String) -> Int? { columns.firstIndex(of: name) }

    /// The same result, naming the statement that returned it.
    func naming(_ sql: SQL) -> QueryResult {
        var named = self
        named.statement = sql.name
        return named
    }

    /// The rows, each read by column name (the names libpq gave, PQfname): a reader no longer
    /// depends on the order of the SELECT list.
    public var namedRows: [Row] {
        rows.map { Row(values: $0, columns: columns, statement: statement) }
    }

    /// Every row decoded as `T`.
    public func decode<T: PostgresRowDecodable>(_ type: T.Type) throws(DatabaseError) -> [T] {
        var out: [T] = []
        out.reserveCapacity(rows.count)
        for row in namedRows { out.append(try T(row: row)) }
        return out
    }

    /// The first row decoded as `T`, or nil when there is none.
    public func decodeFirst<T: PostgresRowDecodable>(_ type: T.Type) throws(DatabaseError) -> T? {
        try namedRows.first.map { (row) throws(DatabaseError) in try T(row: row) }
    }

    /// The one value of a one-row, one-column result, decoded as `T` (Optional when it may be
    /// NULL). No row is an `unexpectedResult` error.
    public func value<T: PostgresDecodable>(_ type: T.Type = T.self) throws(DatabaseError) -> T {
        guard let row = namedRows.first else { throw DatabaseError(.unexpectedResult, "no row returned", query: statement) }
        return try row.decode(column: 0, as: T.self)
    }

    /// The single value of a one-row, one-column result, as text (for tests and tools).
    public var scalar: String? { rows.first?.first ?? nil }

    /// One row of a result, read by column name or position.
    public struct Row: Sendable {
        public let values: [String?]
        /// The result's column names, shared by its rows. Found by a scan, not a hash: a result
        /// has a dozen columns whose names fit in a small string, so comparing them is cheaper
        /// than hashing the name on every read (a report reads ~150k values this way).
        let columns: [String]
        let statement: String?

        init(values: [String?], columns: [String], statement: String?) {
            self.values = values
            self.columns = columns
            self.statement = statement
        }

        /// The value of column `name` as text, nil for SQL NULL. A name the query does not return
        /// is a mistake in the code, like an index past the end.
        public subscript(_ name: String) -> String? {
            guard let position = columns.firstIndex(of: name) else { preconditionFailure("the result has no column \(name)") }
            return values[position]
        }

        /// Whether the result has column `name` (queries that share a reader but not every column).
        public func hasColumn(_ name: String) -> Bool { columns.contains(name) }

        /// Column `name` decoded as `T`. A column the query does not return, NULL where `T` is not
        /// Optional, or text that is not a `T` is an `unexpectedResult` error naming the column and
        /// the statement, never the value (which may be user data).
        public func decode<T: PostgresDecodable>(_ name: String, as type: T.Type = T.self) throws(DatabaseError) -> T {
            guard let position = columns.firstIndex(of: name) else {
                throw DatabaseError(.unexpectedResult, "the result has no column \(name)", query: statement)
            }
            return try decode(position, named: name)
        }

        /// The column at `index` (0-based) decoded as `T`, for results whose columns have no names
        /// of their own (`SELECT count(*), max(x)`).
        public func decode<T: PostgresDecodable>(column index: Int, as type: T.Type = T.self) throws(DatabaseError) -> T {
            guard values.indices.contains(index) else {
                throw DatabaseError(.unexpectedResult, "the result has \(values.count) columns, not \(index + 1)", query: statement)
            }
            return try decode(index, named: "\(index + 1)")
        }

        /// Every column, in order, decoded as the types given: `row.decode((String, Int64).self)`.
        /// A row with another number of columns is an `unexpectedResult` error.
        public func decode<each T: PostgresDecodable>(_ types: (repeat each T).Type) throws(DatabaseError) -> (repeat each T) {
            var expected = 0
            for _ in repeat (each T).self { expected += 1 }
            guard values.count == expected else {
                throw DatabaseError(.unexpectedResult, "a row of \(values.count) columns where \(expected) were expected", query: statement)
            }
            var next = 0
            func take<V: PostgresDecodable>(_ type: V.Type) throws(DatabaseError) -> V {
                defer { next += 1 }
                return try decode(column: next, as: V.self)
            }
            return (repeat try take((each T).self))
        }

        private func decode<T: PostgresDecodable>(_ position: Int, named name: String) throws(DatabaseError) -> T {
            let text = values[position]
            guard let value = T.decode(postgresText: text) else {
                throw DatabaseError(.unexpectedResult, text == nil ? "column \(name) is NULL" : "column \(name) does not hold a \(T.self)",
                                    query: statement)
            }
            return value
        }
    }
}
