import TapwireCore

/// An app, as listed by `tapwire apps list`.
public struct AppRecord: Sendable, Equatable {
    public var appId: Int64
    public var name: String
    public var createdAt: Timestamp
    public var activeWriteKeys: Int
    public var activeReadKeys: Int
}

/// A row of sql/queries/app_by_name.sql (which counts no keys: 0) or of apps_list.sql.
extension AppRecord: PostgresRowDecodable {
    public init(row: QueryResult.Row) throws(DatabaseError) {
        appId = try row.decode("app_id")
        name = try row.decode("name")
        createdAt = try row.decode("created_at_us")
        activeWriteKeys = row.columns.contains("write_keys") ? try row.decode("write_keys") : 0
        activeReadKeys = row.columns.contains("read_keys") ? try row.decode("read_keys") : 0
    }
}
