import Testing
import TapwireCore
@testable import TapwireReport
import TapwireStore
import TapwireTestSupport

/// `PostgresReportReader`'s binary row mappers (ReportRowDecoding.swift), on rows PostgreSQL sends
/// with the report statements' column types: every column a different value, so a column read
/// from the wrong place or at the wrong width fails; NULL reads as the text decoding read it (0,
/// "", false, no cut day); a `numeric` sum is the double `Double` gives for its text.
@Suite struct ReportRowDecodingTests {
    @Test func eachRowKindReadsEveryColumn() throws {
        let db = try TestDatabase.create()
        let connection = try db.connect()
        defer { connection.close() }

        let totals = try PostgresReportReader.totalsRows(connection.queryBinary("""
            SELECT 'ios' AS group_value, 'message' AS category, true AS has_media, 20371::bigint AS cut_day, 5000000001::bigint AS delivered,
                   2::bigint AS sent, 3::bigint AS media_requested, 4::bigint AS opens, 5::bigint AS dismissals, 6::bigint AS actions,
                   7::bigint AS replies
            UNION ALL
            SELECT NULL, 'promo', false, NULL, NULL, 0, 0, 0, 0, 0, 0
            """))
        var counts = RollupDeltas.Counts()
        (counts.delivered, counts.sent, counts.mediaRequested, counts.opens) = (5_000_000_001, 2, 3, 4)
        (counts.dismissals, counts.actions, counts.replies) = (5, 6, 7)
        #expect(totals == [ReportTotalsRow(group: "ios", category: "message", hasMedia: true, cutDay: 20371, counts: counts),
                           ReportTotalsRow(category: "promo", hasMedia: false, counts: RollupDeltas.Counts())])

        // The rollups' statements have no group_value: the rows' group is "".
        let actions = try PostgresReportReader.actionRows(connection.queryBinary(
            "SELECT 'message' AS category, 'reply' AS action, 12::bigint AS count"))
        #expect(actions == [ReportActionRow(category: "message", action: "reply", count: 12)])

        let dismiss = try PostgresReportReader.dismissRows(connection.queryBinary("""
            SELECT 'web' AS group_value, 'message' AS category, '6.3.5' AS app_version, 40::bigint AS delivered, 3::bigint AS dismissals
            """))
        #expect(dismiss == [ReportDismissRow(group: "web", category: "message", appVersion: "6.3.5", delivered: 40, dismissals: 3)])

        let trend = try PostgresReportReader.rawTrendRows(connection.queryBinary("""
            SELECT '' AS group_value, 'message' AS category, '2026-10-03' AS day, 9::bigint AS delivered, 8::bigint AS engaged
            """))
        #expect(trend == [ReportTrendRow(category: "message", day: "2026-10-03", delivered: 9, engaged: 8)])

        // report_raw_histograms.sql's metric and bin are integers; an unknown metric is dropped.
        let histograms = try PostgresReportReader.rawHistogramRows(connection.queryBinary("""
            SELECT 'a' AS group_value, 'message' AS category, 2 AS metric, 17 AS bin, 30::bigint AS count
            UNION ALL SELECT 'a', 'message', 9, 1, 1
            """))
        #expect(histograms == [ReportHistogramRow(group: "a", category: "message", metric: .timeToResponse, bin: 17, count: 30)])
    }

    @Test func conversionRowsReadTheirSumsAsTheirTextsDoubles() throws {
        let db = try TestDatabase.create()
        let connection = try db.connect()
        defer { connection.close() }
        // Sums of 20-odd digits (the fast path) and of more than 38 (through the text).
        let sums = ["12345.678901234567890123", "-0.1", "123456789012345678901234567890123456789.5"]
        let conversions = try PostgresReportReader.conversionRows(connection.queryBinary("""
            SELECT 'message' AS category, true AS has_media, 'purchase' AS name, 'EUR' AS currency, 20372::bigint AS cut_day,
                   11::bigint AS direct, 12::bigint AS influenced, 13::bigint AS converted,
                   sum($1::numeric) AS value_sum, sum($2::numeric) AS value_sq, sum($3::numeric) AS value_cube
            UNION ALL
            SELECT 'promo', false, 'signup', NULL, NULL, 1, 0, 1, NULL, NULL, NULL
            """, sums))
        #expect(conversions == [
            ReportConversionRow(category: "message", hasMedia: true, name: "purchase", currency: "EUR", cutDay: 20372, direct: 11,
                                influenced: 12, converted: 13, valueSum: Double(sums[0])!, valueSquares: Double(sums[1])!,
                                valueCubes: Double(sums[2])!),
            ReportConversionRow(category: "promo", hasMedia: false, name: "signup", direct: 1, influenced: 0, converted: 1),
        ])

        let actions = try PostgresReportReader.conversionActionRows(connection.queryBinary("""
            SELECT 'ios' AS group_value, 'message' AS category, 'open' AS action, 'purchase' AS name, 4::bigint AS direct
            """))
        #expect(actions == [ReportConversionActionRow(group: "ios", category: "message", action: "open", name: "purchase", direct: 4)])

        // kind is a smallint; an unknown kind is dropped.
        let totals = try PostgresReportReader.conversionTotalRows(connection.queryBinary("""
            SELECT 'purchase' AS name, 'EUR' AS currency, 2::smallint AS kind, 5::bigint AS conversions, sum($1::numeric) AS value_sum
            UNION ALL SELECT 'purchase', 'EUR', 7::smallint, 1, NULL
            """, [sums[0]]))
        #expect(totals == [ReportConversionTotalRow(name: "purchase", currency: "EUR", kind: .influenced, conversions: 5,
                                                    valueSum: Double(sums[0])!)])
    }

    @Test func aColumnOfAnotherTypeIsAnError() throws {
        let db = try TestDatabase.create()
        let connection = try db.connect()
        defer { connection.close() }
        // The text path's `::text` sums, read as numbers, would be a wrong decode: refused instead.
        let textSums = try connection.queryBinary("""
            SELECT 'purchase' AS name, '' AS currency, 1::smallint AS kind, 1::bigint AS conversions, '2.5'::text AS value_sum
            """)
        #expect(throws: DatabaseError.self) { try PostgresReportReader.conversionTotalRows(textSums) }
        let missing = try connection.queryBinary("SELECT 'message' AS category, 'reply' AS action")
        #expect(throws: DatabaseError.self) { try PostgresReportReader.actionRows(missing) }
    }
}
