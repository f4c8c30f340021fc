import TapwireCore

/// The events of a report's ranges that no rollup answers (the minutes off a quarter hour at its
/// edges, and cut days' parts before the quarter-hour rows are complete): streamed back as a
/// rebuild streams a day (binary `COPY … TO STDOUT`, one for all the ranges) and aggregated by
/// `RollupDeltas`, the one definition of every aggregate, into its finest rows. The report turns
/// those into its own rows (TapwireReport/PostgresReportReader.swift). A cut quarter read whole
/// (`TapwireReport/ReportPlan.swift`, `wholeQuarters`) adds its pending deltas (`pending`) and
/// takes away its rest (`finest` over the rest's ranges).
package enum ReportEdgeEvents {
    /// The finest rows (quarter hours, every dimension) of the app's events in the ranges
    /// [lo, hi) (µs since 1970), read with one COPY however many ranges there are. Within the
    /// caller's transaction, through the BRIN index only: a day's partition not analysed yet was
    /// scanned whole (sql/queries/report_edge_index_scans.sql).
    package static func finest(appId: Int64, ranges: [(lo: Int64, hi: Int64)], on connection: PostgresConnection) throws(DatabaseError) -> RollupDeltas {
        var reader = EventRowReader<String>()
        try connection.query(EmbeddedSQL.reportEdgeIndexScans)
        try connection.copyOut(built: EmbeddedSQL.reportEdgeEvents, [String(appId), PostgresValue.timestampArray(ranges.map(\.lo)),
                                                                     PostgresValue.timestampArray(ranges.map(\.hi))]) { (piece) throws(DatabaseError) in
            try reader.consume(piece)
        }
        try connection.query(EmbeddedSQL.reportEdgeIndexScansEnd)
        return try reader.finishFinest()
    }

    /// The finest rows of the app's deltas not yet folded, of the quarter hours `quarters` (µs
    /// since 1970), read without taking them (sql/queries/report_pending_deltas.sql). In one
    /// snapshot, a quarter hour's rollup rows plus these count its stored events exactly once,
    /// whatever the fold has got to. The hourly mismatch usage is left out.
    package static func pending(appId: Int64, quarters: [Int64], on connection: PostgresConnection) throws(DatabaseError) -> RollupDeltas {
        var reader = RollupDeltaRows.BatchReader()
        try connection.copyOut(built: EmbeddedSQL.reportPendingDeltas, [String(appId), PostgresValue.timestampArray(quarters)]) { (piece) throws(DatabaseError) in
            try reader.consume(piece)
        }
        let sums = try reader.finishFinest()
        let quarters = Set(quarters)
        func wanted(_ d: RollupDeltas.Dimensions) -> Bool { d.grain == RollupDeltas.Grain.quarter && quarters.contains(d.bucket) }
        var rows = RollupDeltas()
        for (key, counts) in sums.counts where wanted(key.dimensions) { rows.merge(key, counts) }
        for (key, n) in sums.actions where wanted(key.dimensions) { rows.merge(key, n) }
        for (key, n) in sums.histograms where wanted(key.dimensions) { rows.merge(key, n) }
        return rows
    }
}
