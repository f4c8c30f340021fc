/// The JSON of `EXPLAIN (FORMAT JSON)`, for tests that check which scans and joins a statement
/// is planned with.
public enum QueryPlan {
    /// Every node of a plan, depth first (the CTEs' and subplans' plans are among its children).
    public static func nodes(_ plan: [String: Any]) -> [[String: Any]] {
        [plan] + ((plan["Plans"] as? [[String: Any]]) ?? []).flatMap(nodes)
    }
}
