import Testing
import TapwireCore
@testable import TapwireStore
import TapwireTestSupport

/// The SQL side of the report's dimensions (tapwire_dimension_value, tapwire_event_matches,
/// migration 0150) is held to their one declaration (`ReportDimension`, `DimensionValues`): a
/// dimension added in Swift and not in SQL, or in another order, fails here.
@Suite struct DimensionDeclarationTests {
    @Test func theSQLFunctionsKnowEveryDimensionInOrder() throws {
        let db = try TestDatabase.create()
        let app = try db.createApp()
        let connection = try db.connect()
        defer { connection.close() }
        let now = Timestamp.now
        let context = DeviceContext(appVersion: "3.1", platform: "visionOS", osVersion: "26.0.1")
        let event = Event(eventId: .v7(at: now), type: .delivered, deviceTime: now, category: "c", campaign: "spring", variant: "B")
        try BulkLoad.copyEvents([StagedBatch(appId: app.appId, receivedAt: now, context: context, events: [event])], on: connection)
        // What the rollups key the event on, in Swift.
        var deltas = RollupDeltas()
        deltas.add(event, appId: app.appId, context: context)
        deltas.finishFinest()
        let values = try #require(deltas.counts.keys.first).dimensions.values
        #expect(values.os == "26")
        for (index, dimension) in ReportDimension.allCases.enumerated() {
            let sql = try connection.query("SELECT tapwire_dimension_value($1::text, e.app_version, e.platform, e.campaign, e.variant, e.os_version) FROM events e WHERE app_id = $2::bigint",
                                           [dimension.rawValue, String(app.appId)]).scalar
            #expect(sql == values[dimension], "\(dimension): SQL \(sql ?? "NULL"), Swift \(values[dimension])")
            // The filter at the dimension's position matches its value and only it.
            func matches(_ value: String) throws -> String? {
                var filters = [String?](repeating: nil, count: ReportDimension.allCases.count)
                filters[index] = value
                return try connection.query("SELECT tapwire_event_matches($1::text[], e.app_version, e.platform, e.campaign, e.variant, e.os_version) FROM events e WHERE app_id = $2::bigint",
                                            [PostgresValue.textArray(filters), String(app.appId)]).scalar
            }
            #expect(try matches(values[dimension]) == "t", "\(dimension) at position \(index + 1)")
            #expect(try matches(values[dimension] + "x") == "f", "\(dimension) at position \(index + 1)")
        }
        // One more element than there are dimensions: the SQL has no dimension there.
        let unknown = try connection.query("SELECT tapwire_dimension_value('noSuchDimension', e.app_version, e.platform, e.campaign, e.variant, e.os_version) FROM events e WHERE app_id = $1::bigint",
                                           [String(app.appId)]).scalar
        #expect(unknown == "")
    }
}
