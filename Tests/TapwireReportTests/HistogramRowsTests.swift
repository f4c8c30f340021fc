import Testing
import TapwireCore
@testable import TapwireReport
import TapwireStore
import TapwireTestSupport

/// `PostgresReportReader.histogramRows`: the stored rows of report_total_histograms.sql (a
/// category's and metric's bins and counts per block of days or quarter hour) summed per bin into
/// the rows report_raw_histograms.sql gives, a row per category, metric and bin a row named. The
/// rows come back from PostgreSQL in binary with the rollup's types (smallint metric and bins,
/// bigint counts), as the report reads them.
@Suite struct HistogramRowsTests {
    static func result(_ rows: [[String?]]) throws -> BinaryQueryResult {
        let db = try TestDatabase.create()
        let connection = try db.connect()
        defer { connection.close() }
        return try connection.queryBinary("""
            SELECT category, metric::smallint AS metric, bins::smallint[] AS bins, counts::bigint[] AS counts
            FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) WITH ORDINALITY AS u(category, metric, bins, counts, n)
            ORDER BY n
            """, (0..<4).map { column in PostgresValue.textArray(rows.map { $0[column] }) })
    }

    static func sorted(_ rows: [ReportHistogramRow]) -> [[String]] {
        rows.map { [$0.category, String($0.metric.rawValue), String($0.bin), String($0.count)] }
            .sorted { $0.lexicographicallyPrecedes($1) }
    }

    @Test func blocksAreSummedPerCategoryMetricAndBin() throws {
        let rows = try PostgresReportReader.histogramRows(Self.result([
            ["message", "1", "{0,3,501}", "{2,5,1}"],
            ["message", "1", "{3,7}", "{4,1}"],
            ["message", "2", "{3}", "{9}"],
            ["promo", "1", "{3}", "{1}"],
            // A bin a row names with no count is still a row, as the SQL's GROUP BY gave it.
            ["promo", "2", "{40}", "{0}"],
            // A bin beyond the dense range (none the rollups write) is summed all the same.
            ["promo", "2", "{10000,40}", "{6,2}"],
            ["promo", "2", "{10000}", "{1}"],
            // Counts past 32 bits and bins near smallint's top read whole.
            ["promo", "1", "{32767}", "{5000000000}"],
            // An unknown metric is skipped.
            ["promo", "9", "{1}", "{1}"],
        ]))
        let expected: [[String]] = [
            ["message", "1", "0", "2"], ["message", "1", "3", "9"], ["message", "1", "501", "1"], ["message", "1", "7", "1"],
            ["message", "2", "3", "9"], ["promo", "1", "3", "1"], ["promo", "1", "32767", "5000000000"], ["promo", "2", "10000", "7"],
            ["promo", "2", "40", "2"],
        ]
        #expect(Self.sorted(rows) == Self.sorted(expected.map {
            ReportHistogramRow(category: $0[0], metric: HistogramMetric(rawValue: Int($0[1])!)!, bin: Int($0[2])!, count: Int($0[3])!)
        }))
    }

    @Test func aRowWhoseBinsAndCountsDifferInLengthIsAnError() throws {
        let unequal = try Self.result([["message", "1", "{0,3}", "{2}"]]), missing = try Self.result([["message", "1", nil, "{2}"]])
        #expect(throws: DatabaseError.self) { try PostgresReportReader.histogramRows(unequal) }
        #expect(throws: DatabaseError.self) { try PostgresReportReader.histogramRows(missing) }
    }
}
