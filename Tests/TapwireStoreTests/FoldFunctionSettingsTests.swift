import Testing
import TapwireTestSupport

/// The fold's functions carry planner settings that their statements' plans rely on (0190's jit,
/// 0233's seqscan, 0250's work_mem, 0271's bitmap scans, 0302's joins: its rule turns nested loops
/// and merge joins off with SET LOCAL, which the function's own SET of both keeps to the function;
/// 0308's generic plan of the uplift insert). `CREATE OR REPLACE FUNCTION` drops every
/// setting its text does not restate, so a later migration that replaces a function without them
/// would silently bring back the plans they ruled out (docs/outcomes.md, "What a fold costs").
@Suite struct FoldFunctionSettingsTests {
    @Test func theFoldFunctionsKeepTheirPlannerSettingsAfterEveryMigration() throws {
        let db = try TestDatabase.create()
        // By signature: tapwire_attribute_pending(bigint) runs (bigint, integer) for every part (0328).
        func settings(_ function: String) throws -> Set<String> {
            let value = try db.query("SELECT array_to_string(proconfig, ',') FROM pg_proc WHERE oid = $1::regprocedure", [function]).rows.first?.first ?? nil
            return Set((value ?? "").split(separator: ",").map(String.init))
        }
        let attribution = try settings("tapwire_attribute_pending(bigint, integer)")
        #expect(attribution.isSuperset(of: ["enable_seqscan=off", "jit=off", "work_mem=32MB", "enable_bitmapscan=off",
                                                 "enable_nestloop=on", "enable_mergejoin=on"]), "\(attribution)")
        let holdouts = try settings("tapwire_holdouts_pending(bigint)")
        #expect(holdouts.contains("enable_bitmapscan=off"), "\(holdouts)")
        let upliftAdd = try settings("tapwire_conversion_uplift_add(bigint)")
        #expect(upliftAdd.contains("plan_cache_mode=force_generic_plan"), "\(upliftAdd)")
    }
}
