import CLibPQ

/// The rows of a query result in text format: what libpq returns without binary decoding.
public struct QueryResult: Sendable {
    public var columns: [String]
    public var rows: [[String?]]
    /// The row count of an INSERT/UPDATE/DELETE (PQcmdTuples), 0 otherwise.
    public var affectedRows: Int

    public init(columns: [String], rows: [[String?]], affectedRows: Int) {
        self.columns = columns
        self.rows = rows
        self.affectedRows = affectedRows
    }

    public func column(_ name: String) -> Int? { columns.firstIndex(of: name) }

    /// The rows, each read by column name (the names libpq gave, PQfname): a reader no longer
    /// depends on the order of the SELECT list.
    public var namedRows: [Row] {
        rows.map { Row(values: $0, columns: columns) }
    }

    /// One row of a result, read by column name.
    public struct Row: Sendable {
        public let values: [String?]
        /// The result's column names, shared by its rows. Found by a scan, not a hash: a result
        /// has a dozen columns whose names fit in a small string, so comparing them is cheaper
        /// than hashing the name on every read (a report reads ~150k values this way).
        let columns: [String]

        /// The value of column `name` as text, nil for SQL NULL. A name the query does not return
        /// is a mistake in the code, like an index past the end.
        public subscript(_ name: String) -> String? {
            guard let position = columns.firstIndex(of: name) else { preconditionFailure("the result has no column \(name)") }
            return values[position]
        }
    }

    /// The single value of a one-row, one-column result.
    public var scalar: String? { rows.first?.first ?? nil }
}
