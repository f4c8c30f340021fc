/// Loading events with a plain COPY, no dedup and no rollups: a fast way to seed large volumes
/// for the report benchmarks and the tests.
public enum BulkLoad {
    /// COPYs the events into `events` in one transaction and returns the row count.
    @discardableResult
    public static func copyEvents(_ batches: [StagedBatch], on connection: PostgresConnection,
                                  partitions: PartitionDays = PartitionDays()) throws(DatabaseError) -> Int {
        let writer = EventWriter(connection: connection, partitions: partitions)
        try writer.ensurePartitions(for: batches)
        return try connection.transaction { () throws(DatabaseError) -> Int in
            try connection.copyIn(EmbeddedSQL.copyEvents, data: EventCopyRows.encode(batches))
        }
    }
}
