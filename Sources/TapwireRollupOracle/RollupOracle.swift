import TapwireCore
import TapwireStore

/// The rollups recomputed from raw events in SQL (sql/fresh/): a second definition of every
/// aggregate, written independently of `RollupDeltas`, which the tests and the soak hold equal,
/// row for row, to what the collector wrote. It is not part of the product (`tapwire rollups
/// rebuild` recomputes with `RollupDeltas`); it exists so the Swift definition is checked against
/// something that is not itself.
public enum RollupOracle {
    /// Recomputes the rollups of [from, to), widened to whole UTC days, for the app (or every
    /// app), replacing what is stored, under the same per-day lock and fold as a rebuild.
    @discardableResult
    public static func recompute(appId: Int64?, from: Timestamp, to: Timestamp,
                                 on connection: PostgresConnection) throws(DatabaseError) -> [RollupStore.Progress] {
        try RollupStore().forEachDay(appId: appId, from: from, to: to, on: connection, progress: { _ in }) { (parameters) throws(DatabaseError) -> Int in
            // The day's rollups go first (and the rebuild generation is bumped); sql/fresh/
            // then inserts the recomputation into empty keys.
            try connection.query(OracleSQL.deleteDays, parameters)
            try connection.query(OracleSQL.createStaging)
            let staged = try connection.query(OracleSQL.stageEvents, parameters).affectedRows
            if staged > 0 {
                for statement in OracleSQL.freshRowStatements { try connection.query(statement.sql) }
            }
            return staged
        }
    }
}
