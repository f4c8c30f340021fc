import Foundation
import TapwireCore
import TapwireStore

/// Reads the holdouts' daily rows (rollup_holdouts, migration 0201) for the report and the
/// sample-ratio family alike: one query, one decoding.
enum HoldoutReader {
    /// Every campaign with an assignment in [from, to), each with all its UTC days before `to`,
    /// so its figures are the campaign's from its start (docs/holdouts.md).
    static func campaigns(appId: Int64, from: Timestamp, to: Timestamp, on connection: PostgresConnection) throws(DatabaseError) -> [HoldoutCounts] {
        let rows = try connection.query(EmbeddedSQL.reportHoldouts, [String(appId), from.iso8601(fractionDigits: 6),
                                                                     to.iso8601(fractionDigits: 6)]).namedRows
        var campaigns: [HoldoutCounts] = []
        for row in rows {
            let campaign = row["campaign"] ?? ""
            if campaigns.last?.campaign != campaign {
                campaigns.append(HoldoutCounts(campaign: campaign, window: row["conversion_window"] ?? "",
                                               statedShares: (row["shares"] ?? "").split(separator: ",").compactMap { Double($0) }, days: []))
            }
            let arm = HoldoutCounts.Arm(assigned: PostgresReportReader.int(row["assigned"]), converted: PostgresReportReader.int(row["converted"]),
                                        valueSum: decimal(row["value_sum"]), valueSquares: decimal(row["value_sq"]),
                                        valueCubes: decimal(row["value_cube"]))
            let day = row["day"] ?? ""
            var days = campaigns[campaigns.count - 1].days
            if days.last?.day != day { days.append(HoldoutCounts.Day(day: day, treated: .init(), heldOut: .init())) }
            if row["held_out"] == "t" { days[days.count - 1].heldOut = arm } else { days[days.count - 1].treated = arm }
            campaigns[campaigns.count - 1].days = days
        }
        return campaigns
    }

    /// The apps with assignments since `since`: those the sample-ratio family scans.
    static func activeApps(since: Timestamp, fold: any ReadFold, on connection: PostgresConnection) throws(DatabaseError) -> [(appId: Int64, name: String)] {
        try fold.foldBeforeReading(on: connection)
        return try connection.query(EmbeddedSQL.holdoutActiveApps, [since.iso8601(fractionDigits: 6)]).namedRows.map { (row) throws(DatabaseError) in
            (try row.decode("app_id"), try row.decode("name"))
        }
    }

    /// A PostgreSQL numeric, exactly (its text in Foundation's Decimal, 38 digits).
    static func decimal(_ text: String?) -> Decimal { text.flatMap { Decimal(string: $0, locale: Locale(identifier: "en_US_POSIX")) } ?? 0 }
}
