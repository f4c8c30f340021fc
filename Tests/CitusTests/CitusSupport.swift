import Testing
import TapwireStore
import TapwireTestSupport

/// The cluster of this test process, or the calling test cancelled with how to get Citus (under
/// CI=true, `CitusCluster.shared()` throws instead and the test fails).
func citus() throws -> CitusCluster {
    do {
        return try CitusCluster.shared()
    } catch let unavailable as CitusCluster.Unavailable {
        try Test.cancel(Comment(rawValue: unavailable.message))
    }
}

/// How Citus laid out each table of the database: "distributed" (by hash of app_id, with its
/// colocation group), "reference", or "citus local" for one Citus added to its metadata itself.
func citusLayout(_ connection: PostgresConnection) throws -> [String: (layout: String, column: String?, colocation: Int?)] {
    var out: [String: (String, String?, Int?)] = [:]
    for row in try connection.query("""
        SELECT logicalrelid::text, partmethod::text, repmodel::text, column_to_column_name(logicalrelid, partkey), colocationid
        FROM pg_dist_partition
        WHERE NOT EXISTS (SELECT 1 FROM pg_inherits i WHERE i.inhrelid = logicalrelid)
        """).rows {
        let layout = row[1] == "h" ? "distributed" : row[2] == "t" ? "reference" : "citus local"
        out[row[0] ?? ""] = (layout, row[3], row[4].flatMap { Int($0) })
    }
    return out
}
