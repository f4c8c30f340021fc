import TapwireStore
import TapwireTestSupport

/// The sums of rich vs text-only on conversion that the fold and attribution keep as the strata
/// change (migration 0180), as rows of canonical text, beside the same sums recomputed here, in
/// one statement, from the strata as stored (rollup_strata, rollup_conversion_strata), so the two
/// compare row for row whatever order the events came in.
struct ConversionUpliftSums: Equatable {
    /// Per category and day (the base) and per category, day, name and currency, sorted.
    var base: [[String?]]
    var names: [[String?]]
    /// Changes of delivered not yet added to the names (none once a fold has run).
    var queued: Int

    private static let terms = ["strata", "excluded_delivered", "weights", "numerator", "p", "q", "null_sum", "deviation",
                                "used_rich_delivered", "used_rich_engaged", "used_text_delivered", "used_text_engaged",
                                "both_rich_delivered", "both_rich_engaged", "both_text_delivered", "both_text_engaged",
                                "not_meaningful_delivered", "engaged_without_deliveries"]
    private static func text(_ alias: String) -> String { terms.map { "trim_scale(\(alias).\($0)::numeric)::text" }.joined(separator: ", ") }
    private static func sums(_ alias: String) -> String { terms.map { "sum(\(alias).\($0))" }.joined(separator: ", ") }
    private static let day = "(extract(epoch FROM day) * 1000000)::bigint::text"

    static func stored(_ database: TestDatabase, app: Int64) throws -> ConversionUpliftSums {
        try read(database, app: app, base: "SELECT \(day), category, \(text("b")) FROM rollup_conversion_base_days b WHERE app_id = $1",
                 names: "SELECT \(day), category, name, currency, \(text("u")) FROM rollup_conversion_uplift_days u WHERE app_id = $1")
    }

    /// Every stratum's terms of (delivered, 0), and each name's converted strata's terms less
    /// those: the definition, from tapwire_uplift_terms alone.
    static func recomputed(_ database: TestDatabase, app: Int64) throws -> ConversionUpliftSums {
        try read(database, app: app, base: """
            SELECT \(day), category, \(text("b")) FROM (
                SELECT s.day, s.category, \(sums("t")) FROM rollup_strata s
                CROSS JOIN LATERAL tapwire_uplift_terms(s.rich_delivered, 0, s.text_delivered, 0) t
                WHERE s.app_id = $1 AND (s.rich_delivered <> 0 OR s.text_delivered <> 0)
                GROUP BY 1, 2) b (day, category, \(terms.joined(separator: ", ")))
            """, names: """
            SELECT \(day), category, name, currency, \(text("u")) FROM (
                SELECT c.day, c.category, c.name, c.currency, \(terms.map { "sum(t.\($0) - z.\($0))" }.joined(separator: ", "))
                FROM rollup_conversion_strata c
                LEFT JOIN rollup_strata s USING (app_id, day, category, campaign, platform)
                CROSS JOIN LATERAL tapwire_uplift_terms(coalesce(s.rich_delivered, 0), c.rich_converted,
                                                        coalesce(s.text_delivered, 0), c.text_converted) t
                CROSS JOIN LATERAL tapwire_uplift_terms(coalesce(s.rich_delivered, 0), 0, coalesce(s.text_delivered, 0), 0) z
                WHERE c.app_id = $1
                GROUP BY 1, 2, 3, 4) u (day, category, name, currency, \(terms.joined(separator: ", ")))
            """)
    }

    private static func read(_ database: TestDatabase, app: Int64, base: String, names: String) throws -> ConversionUpliftSums {
        let connection = try database.connect()
        defer { connection.close() }
        func rows(_ sql: String) throws -> [[String?]] {
            try connection.query(sql, [String(app)]).rows.sorted { $0.map { $0 ?? "" }.lexicographicallyPrecedes($1.map { $0 ?? "" }) }
        }
        let queued = Int(try connection.query("SELECT count(*) FROM conversion_strata_pending WHERE app_id = $1", [String(app)]).scalar ?? "") ?? -1
        return ConversionUpliftSums(base: try rows(base), names: try rows(names), queued: queued)
    }

    /// What differs, in a few lines, or nothing.
    func differences(from other: ConversionUpliftSums, _ label: (String, String)) -> [String] {
        var out: [String] = []
        for (table, mine, theirs) in [("base", base, other.base), ("names", names, other.names)] where mine != theirs {
            let a = Set(mine.map { $0.map { $0 ?? "∅" }.joined(separator: " | ") })
            let b = Set(theirs.map { $0.map { $0 ?? "∅" }.joined(separator: " | ") })
            out.append("\(table): \(mine.count) rows in \(label.0), \(theirs.count) in \(label.1)\n  only in \(label.0):\n    "
                       + a.subtracting(b).sorted().prefix(3).joined(separator: "\n    ") + "\n  only in \(label.1):\n    "
                       + b.subtracting(a).sorted().prefix(3).joined(separator: "\n    "))
        }
        if queued != other.queued { out.append("queued changes: \(queued) in \(label.0), \(other.queued) in \(label.1)") }
        return out
    }
}
