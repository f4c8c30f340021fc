/// A type read from a whole row, by column name: `QueryResult.decode(_:)` makes one per row.
public protocol PostgresRowDecodable {
    init(row: QueryResult.Row) throws(DatabaseError)
}
