import Testing
import TapwireStatistics
import TapwireTestSupport

/// Migration 0300: the fold's array addition in one pass gives what 0080's definition gave, and
/// the rollups the fold updates keep room on their pages for the updates to stay there.
@Suite struct FoldUpsertTests {
    /// Migration 0080's tapwire_add_hour_counts, as it was: the reference.
    static let reference = """
        SELECT ARRAY(SELECT x.n + y.n FROM unnest($1::bigint[]) WITH ORDINALITY AS x(n, i)
                     JOIN unnest($2::bigint[]) WITH ORDINALITY AS y(n, i) USING (i) ORDER BY i)::text
        """

    @Test func arraysAddAsMigration0080DefinedIt() throws {
        let db = try TestDatabase.create()
        let connection = try db.connect()
        defer { connection.close() }
        var rng = SeededGenerator(seed: 300)
        var pairs: [(String?, String?)] = [(nil, "{1}"), ("{1}", nil), (nil, nil), ("{}", "{}"), ("{}", "{1}"), ("{1,2}", "{5}"),
                                           ("{5}", "{1,2}"), ("{1,NULL,3}", "{1,2,NULL}"), ("{-4,9223372036854775000}", "{4,7}"),
                                           ("[0:2]={1,2,3}", "{10,20,30}"), ("{1,2,3}", "[-3:-2]={10,20}"), ("[5:6]={1,2}", "[2:4]={3,4,5}")]
        for _ in 0..<300 {
            let count = [24, 97, 1, 5].randomElement(using: &rng)!
            let a = (0..<count).map { _ in Int64.random(in: -1_000...1_000_000, using: &rng) }
            let b = (0..<count).map { _ in Int64.random(in: -10...10, using: &rng) }
            pairs.append((Self.literal(a), Self.literal(b)))
        }
        for (a, b) in pairs {
            let expected = try connection.query(Self.reference, [a, b]).scalar
            let got = try connection.query("SELECT tapwire_add_hour_counts($1::bigint[], $2::bigint[])::text", [a, b]).scalar
            #expect(got == expected, "\(a ?? "NULL") + \(b ?? "NULL")")
        }
    }

    @Test func theRollupsTheFoldUpdatesLeaveRoomOnTheirPages() throws {
        let db = try TestDatabase.create()
        let tables = ["rollup_totals", "rollup_total_actions", "rollup_total_histograms", "rollup_trend", "rollup_dismiss_base", "rollup_dismiss_blocks",
                      "rollup_dismiss_quarters", "rollup_strata", "rollup_uplift_days", "rollup_marginals", "rollup_release_counts",
                      "rollup_release_actions", "mismatch_usage_hourly", "mismatch_usage_daily"]
        for table in tables {
            let options = try db.query("SELECT array_to_string(reloptions, ',') FROM pg_class WHERE relname = $1 AND relkind IN ('r', 'p')",
                                       [table]).rows.first?.first ?? nil
            #expect(options?.contains("fillfactor=70") == true, "\(table): \(options ?? "no options")")
        }
    }

    static func literal(_ values: [Int64]) -> String { "{" + values.map(String.init).joined(separator: ",") + "}" }
}
