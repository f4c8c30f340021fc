import TapwireCore

/// The events of a report's ranges that no rollup answers (the minutes off a quarter hour at its
/// edges, and cut days' parts before the quarter-hour rows are complete): streamed back as a
/// rebuild streams a day (binary `COPY … TO STDOUT`, one for all the ranges) and aggregated by
/// `RollupDeltas`, the one definition of every aggregate, into its finest rows. The report turns
/// those into its own rows (TapwireReport/PostgresReportReader.swift).
package enum ReportEdgeEvents {
    /// The finest rows (quarter hours, every dimension) of the app's events in the ranges
    /// [lo, hi) (µs since 1970), read with one COPY however many ranges there are.
    package static func finest(appId: Int64, ranges: [(lo: Int64, hi: Int64)], on connection: PostgresConnection) throws(DatabaseError) -> RollupDeltas {
        var reader = EventRowReader()
        try connection.copyOut(built: EmbeddedSQL.reportEdgeEvents, [String(appId), PostgresValue.timestampArray(ranges.map(\.lo)),
                                                                     PostgresValue.timestampArray(ranges.map(\.hi))]) { (piece) throws(DatabaseError) in
            try reader.consume(piece)
        }
        return try reader.finishFinest()
    }
}
