import Foundation
import Testing
import TapwireCore
import TapwireStore
import TapwireTestSupport

/// Issue 35: tapwire_conversion_uplift_add's insert into rollup_conversion_uplift_days takes
/// 20-35 ms to plan (tapwire_uplift_terms inlined four times). Its callers run it under two
/// settings: tapwire_conversion_uplift_delivered under the server's, tapwire_attribute_pending
/// under enable_seqscan = off. Before migration 0308, PL/pgSQL's plan cache then planned it on
/// every call once the generic plan had been made in a call of the second kind (docs/outcomes.md,
/// "What the round's fold waits for; the uplift insert planned once"). The plans are counted by
/// pg_stat_statements, which must be preloaded: the test starts a cluster of its own with it, and
/// without autovacuum, whose ANALYZE would throw a kept plan away at a moment of its choosing.
@Suite(.serialized)
struct ConversionUpliftPlanTests {
    @Test func theUpliftInsertKeepsItsPlanWhateverItsCallersSettings() throws {
        let cluster = try PrivateCluster.make(durable: false)
        try cluster.initialize()
        // postgresql.auto.conf is read at start, after postgresql.conf: the preload and the
        // planning counts, owned by the server's user whoever writes it.
        let conf = cluster.dataDirectory + "/postgresql.auto.conf"
        let handle = try #require(FileHandle(forWritingAtPath: conf))
        handle.seekToEndOfFile()
        handle.write(Data("""
            shared_preload_libraries = 'pg_stat_statements'
            pg_stat_statements.track = 'all'
            pg_stat_statements.track_planning = on
            autovacuum = off

            """.utf8))
        try handle.close()
        try cluster.start()
        defer { try? cluster.removeData() }
        try cluster.createDatabase("tapwire")
        let db = try PostgresConnection(url: cluster.url(database: "tapwire"))
        defer { db.close() }
        try Migrator().migrate(db)
        let app = try AppStore().createApp(named: "uplift-plans", on: db).appId
        try db.query("CREATE EXTENSION pg_stat_statements")
        try db.query("SELECT pg_stat_statements_reset()")

        // Calls in one session, as a collector's folds make them: the server's settings (the
        // delivered's share) and enable_seqscan = off (attribution's) in turn, the sixth call
        // (where the plan cache first makes a generic plan) of the second kind.
        func call(_ n: Int) throws {
            try db.transaction { () throws(DatabaseError) in
                try db.query(n % 2 == 0 ? "SET LOCAL enable_seqscan = off" : "SET LOCAL enable_seqscan = on")
                try db.query("SELECT tapwire_conversion_uplift_scratch()")
                try db.query("""
                    INSERT INTO tapwire_conversion_uplift_change
                    VALUES (date_trunc('day', now()), 'promo', 'purchase', 'EUR', 10, \(n), 10, 2, 10, \(n + 1), 10, 2)
                    """)
                try db.query("SELECT tapwire_conversion_uplift_add($1::bigint)", [String(app)])
            }
        }
        func counts() throws -> (calls: Int, plans: Int) {
            let row = try #require(try db.query("""
                SELECT coalesce(sum(calls), 0)::bigint, coalesce(sum(plans), 0)::bigint FROM pg_stat_statements
                WHERE query LIKE 'INSERT INTO rollup_conversion_uplift_days%'
                """).rows.first)
            return (try #require(row[0].flatMap { Int($0) }), try #require(row[1].flatMap { Int($0) }))
        }
        for n in 1...12 { try call(n) }
        let first = try counts()
        for n in 13...24 { try call(n) }
        let second = try counts()
        #expect(first.calls == 12 && second.calls == 24)
        // Planned while the session starts (at most the plan cache's five custom plans and its
        // generic one), then kept: no plan in the second dozen. Before 0308: 13 plans in the
        // first dozen (five custom; at the sixth call the generic plan, which cost more, and a
        // custom one; a custom plan in every call after), 12 in the second.
        #expect(first.plans <= 6, "the uplift insert planned \(first.plans) times in the first 12 calls")
        #expect(second.plans == first.plans, "the uplift insert planned \(second.plans - first.plans) times in 12 calls after the first 12")
        // Every change added to the one key.
        let rows = try db.query("SELECT count(*)::bigint FROM rollup_conversion_uplift_days WHERE app_id = $1::bigint",
                                [String(app)]).value(Int64.self)
        #expect(rows == 1)
    }
}
