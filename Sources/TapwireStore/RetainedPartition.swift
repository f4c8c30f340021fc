import TapwireCore

/// A partition of events that retention drops (or, in a dry run, would drop).
public struct RetainedPartition: Sendable, Equatable {
    public var name: String
    public var rangeStart: Timestamp
    public var rangeEnd: Timestamp
    /// The planner's estimate; nil when the partition was never analyzed.
    public var estimatedRows: Int64?
}

/// A row of sql/queries/retention_due_partitions.sql.
extension RetainedPartition: PostgresRowDecodable {
    public init(row: QueryResult.Row) throws(DatabaseError) {
        name = try row.decode("partition_name")
        rangeStart = try row.decode("range_start_us")
        rangeEnd = try row.decode("range_end_us")
        estimatedRows = try row.decode("estimated_rows")
    }
}
