import TapwireCore
import TapwireStatistics
import TapwireStore

/// The report's rows read in binary (`PostgresConnection.queryBinary`), one mapper per row kind,
/// shared by the rollups' statements and the raw-events ones (`report_raw_*.sql`) where the
/// columns are the same; a `group_value` column is read where the statement has one. Each column
/// is found once per result, not by name in every row. NULL reads as 0, "" or false, as the text
/// decoding did; a count past 64 bits is an error, not 0 (docs/reports.md, "Rows read in binary").
extension PostgresReportReader {
    /// Reads row `row` of a result: `text`, `count` and `flag` of a column position.
    struct BinaryRow {
        let result: BinaryQueryResult
        let row: Int

        /// "" for NULL, and for a column the statement does not have (nil).
        func text(_ column: Int?) throws(DatabaseError) -> String {
            guard let column else { return "" }
            return try result.text(row, column) ?? ""
        }

        func count(_ column: Int) throws(DatabaseError) -> Int { Int(try result.integer(row, column) ?? 0) }

        /// nil for NULL (a row of the range's whole days has no `cut_day`).
        func integer(_ column: Int) throws(DatabaseError) -> Int? { try result.integer(row, column).map { Int($0) } }

        func flag(_ column: Int) throws(DatabaseError) -> Bool { try result.bool(row, column) ?? false }

        /// A `numeric` sum as the nearest double (`ExactDecimal.double`, as `Double` parsed its text),
        /// read in place; one past 10^38 or 27 places is decoded whole and goes through its text.
        func real(_ column: Int) throws(DatabaseError) -> Double {
            guard let scaled = try result.scaledNumeric(row, column) else { return 0 }
            if let value = ExactDecimal.double(scaled) { return value }
            return try result.numeric(row, column).map { ExactDecimal.double($0) } ?? 0
        }
    }

    /// Calls `body` with each row of `result`, collecting what it returns.
    static func mapRows<T>(_ result: BinaryQueryResult, _ body: (BinaryRow) throws(DatabaseError) -> T?) throws(DatabaseError) -> [T] {
        var rows: [T] = []
        rows.reserveCapacity(result.rowCount)
        for row in 0..<result.rowCount {
            if let value = try body(BinaryRow(result: result, row: row)) { rows.append(value) }
        }
        return rows
    }

    /// report_totals.sql and report_raw_totals.sql.
    static func totalsRows(_ result: BinaryQueryResult) throws(DatabaseError) -> [ReportTotalsRow] {
        let group = result.column("group_value"), category = try result.position("category")
        let hasMedia = try result.position("has_media"), cutDay = try result.position("cut_day")
        let delivered = try result.position("delivered"), sent = try result.position("sent")
        let mediaRequested = try result.position("media_requested"), opens = try result.position("opens")
        let dismissals = try result.position("dismissals"), actions = try result.position("actions")
        let replies = try result.position("replies")
        return try mapRows(result) { (r) throws(DatabaseError) in
            var c = RollupDeltas.Counts()
            c.delivered = Int64(try r.count(delivered))
            c.sent = Int64(try r.count(sent))
            c.mediaRequested = Int64(try r.count(mediaRequested))
            c.opens = Int64(try r.count(opens))
            c.dismissals = Int64(try r.count(dismissals))
            c.actions = Int64(try r.count(actions))
            c.replies = Int64(try r.count(replies))
            return ReportTotalsRow(group: try r.text(group), category: try r.text(category), hasMedia: try r.flag(hasMedia),
                                   cutDay: try r.integer(cutDay), counts: c)
        }
    }

    /// report_total_actions.sql and report_raw_actions.sql.
    static func actionRows(_ result: BinaryQueryResult) throws(DatabaseError) -> [ReportActionRow] {
        let group = result.column("group_value"), category = try result.position("category")
        let action = try result.position("action"), count = try result.position("count")
        return try mapRows(result) { (r) throws(DatabaseError) in
            ReportActionRow(group: try r.text(group), category: try r.text(category), action: try r.text(action), count: try r.count(count))
        }
    }

    /// report_dismiss.sql and report_raw_dismiss.sql.
    static func dismissRows(_ result: BinaryQueryResult) throws(DatabaseError) -> [ReportDismissRow] {
        let group = result.column("group_value"), category = try result.position("category")
        let appVersion = try result.position("app_version")
        let delivered = try result.position("delivered"), dismissals = try result.position("dismissals")
        return try mapRows(result) { (r) throws(DatabaseError) in
            ReportDismissRow(group: try r.text(group), category: try r.text(category), appVersion: try r.text(appVersion),
                             delivered: try r.count(delivered), dismissals: try r.count(dismissals))
        }
    }

    /// report_raw_trend.sql (the rollups' rows are summed per local day: `trendRows`).
    static func rawTrendRows(_ result: BinaryQueryResult) throws(DatabaseError) -> [ReportTrendRow] {
        let group = result.column("group_value"), category = try result.position("category"), day = try result.position("day")
        let delivered = try result.position("delivered"), engaged = try result.position("engaged")
        return try mapRows(result) { (r) throws(DatabaseError) in
            ReportTrendRow(group: try r.text(group), category: try r.text(category), day: try r.text(day),
                           delivered: try r.count(delivered), engaged: try r.count(engaged))
        }
    }

    /// report_raw_histograms.sql: a row per bin (the rollups' arrays are summed: `histogramRows`).
    /// A metric the report does not know is dropped.
    static func rawHistogramRows(_ result: BinaryQueryResult) throws(DatabaseError) -> [ReportHistogramRow] {
        let group = result.column("group_value"), category = try result.position("category"), metric = try result.position("metric")
        let bin = try result.position("bin"), count = try result.position("count")
        return try mapRows(result) { (r) throws(DatabaseError) in
            guard let m = HistogramMetric(rawValue: try r.count(metric)) else { return nil }
            return ReportHistogramRow(group: try r.text(group), category: try r.text(category), metric: m, bin: try r.count(bin),
                                      count: try r.count(count))
        }
    }

    /// report_conversions.sql and report_raw_conversions.sql: the value sums are `numeric`s.
    static func conversionRows(_ result: BinaryQueryResult) throws(DatabaseError) -> [ReportConversionRow] {
        let group = result.column("group_value"), category = try result.position("category")
        let hasMedia = try result.position("has_media"), name = try result.position("name"), currency = try result.position("currency")
        let cutDay = try result.position("cut_day"), direct = try result.position("direct"), influenced = try result.position("influenced")
        let converted = try result.position("converted"), valueSum = try result.position("value_sum")
        let valueSquares = try result.position("value_sq"), valueCubes = try result.position("value_cube")
        return try mapRows(result) { (r) throws(DatabaseError) in
            ReportConversionRow(group: try r.text(group), category: try r.text(category), hasMedia: try r.flag(hasMedia),
                                name: try r.text(name), currency: try r.text(currency),
                                cutDay: try r.integer(cutDay), direct: try r.count(direct),
                                influenced: try r.count(influenced), converted: try r.count(converted), valueSum: try r.real(valueSum),
                                valueSquares: try r.real(valueSquares), valueCubes: try r.real(valueCubes))
        }
    }

    /// report_conversion_actions.sql and report_raw_conversion_actions.sql.
    static func conversionActionRows(_ result: BinaryQueryResult) throws(DatabaseError) -> [ReportConversionActionRow] {
        let group = result.column("group_value"), category = try result.position("category")
        let action = try result.position("action"), name = try result.position("name"), direct = try result.position("direct")
        return try mapRows(result) { (r) throws(DatabaseError) in
            ReportConversionActionRow(group: try r.text(group), category: try r.text(category), action: try r.text(action),
                                      name: try r.text(name), direct: try r.count(direct))
        }
    }

    /// report_conversion_totals.sql and report_raw_conversion_totals.sql; a kind the report does
    /// not know is dropped.
    static func conversionTotalRows(_ result: BinaryQueryResult) throws(DatabaseError) -> [ReportConversionTotalRow] {
        let name = try result.position("name"), currency = try result.position("currency"), kind = try result.position("kind")
        let conversions = try result.position("conversions"), valueSum = try result.position("value_sum")
        return try mapRows(result) { (r) throws(DatabaseError) in
            guard let k = ReportConversionTotalRow.Kind(rawValue: try r.count(kind)) else { return nil }
            return ReportConversionTotalRow(name: try r.text(name), currency: try r.text(currency), kind: k,
                                            conversions: try r.count(conversions), valueSum: try r.real(valueSum))
        }
    }
}
