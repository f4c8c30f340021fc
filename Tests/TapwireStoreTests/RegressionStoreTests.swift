import Foundation
import TapwireStatistics
import Testing
import TapwireCore
import TapwireTestSupport

@testable import TapwireStore

/// The release-regression check's reads (RegressionStore.swift, migration 0080): the hourly rows
/// it gets from the release rollups are the events' own counts, and which days it reads (the
/// candidate's first day, its horizon, the whole hours before the instant).
@Suite(.serialized) struct RegressionStoreTests {
    static let day0 = Timestamp(iso8601: "2026-11-02T00:00:00Z")!
    static let hour: Int64 = 3_600_000_000

    /// Events of three versions over three days, two platforms, with campaigns, variants and media
    /// the release rollups sum over, and every kind of response.
    static func events(seed: UInt64) -> [(DeviceContext, Event)] {
        var rng = SeededGenerator(seed: seed)
        var out: [(DeviceContext, Event)] = []
        let actions = [SystemAction.open, SystemAction.dismiss, "accept", "reply", "like"]
        for i in 0..<3_000 {
            let version = ["1.0", "1.1", "1.2"][Int(rng.next() % 3)]
            // 1.2 starts on the second day.
            let dayOffset = version == "1.2" ? 1 + Int(rng.next() % 2) : Int(rng.next() % 3)
            let time = day0.adding(seconds: Double(dayOffset * 86_400) + Double(rng.next() % 86_400))
            let context = DeviceContext(appVersion: version, platform: rng.next() % 4 == 0 ? "iPadOS" : "iOS")
            let category = ["invite", "message"][Int(rng.next() % 2)]
            let id = EventID.v7(at: time, using: &rng)
            let campaign = ["", "spring", "winter"][Int(rng.next() % 3)]
            let media = rng.next() % 2 == 0
            if i % 3 == 0 {
                let action = actions[Int(rng.next() % UInt64(actions.count))]
                out.append((context, Event(eventId: id, type: .response, deviceTime: time, category: category, actionIdentifier: action,
                                           userTextLength: action == "reply" && rng.next() % 2 == 0 ? 12 : nil, hasMedia: media,
                                           campaign: campaign.isEmpty ? nil : campaign, variant: rng.next() % 2 == 0 ? "A" : nil)))
            } else {
                out.append((context, Event(eventId: id, type: rng.next() % 10 == 0 ? .sent : .delivered, deviceTime: time, category: category,
                                           hasMedia: media, campaign: campaign.isEmpty ? nil : campaign)))
            }
        }
        return out
    }

    /// The same rows, computed here from the events: one per hour, category, version and platform.
    static func expectedRows(_ events: [(DeviceContext, Event)], before end: Int64) -> [String: RegressionRow] {
        var rows: [String: RegressionRow] = [:]
        for (context, e) in events where e.eventTime.microseconds < end {
            let hour = e.eventTime.microseconds / hour * hour
            let key = "\(hour)|\(e.category)|\(context.appVersion)|\(context.platform)"
            var row = rows[key] ?? RegressionRow(category: e.category, appVersion: context.appVersion, platform: context.platform,
                                                 hour: hour, delivered: 0)
            switch (e.type, e.actionIdentifier) {
            case (.delivered, _): row.delivered += 1
            case (.response, SystemAction.open?): row.opens += 1
            case (.response, SystemAction.dismiss?): row.dismissals += 1
            case (.response, let action?):
                row.actions[action, default: 0] += 1
                if e.userTextLength != nil { row.textReplies += 1 }
            default: break
            }
            rows[key] = row
        }
        // An hour with nothing but `sent` events is no row.
        return rows.filter { $0.value.delivered + $0.value.opens + $0.value.dismissals + $0.value.textReplies > 0 || !$0.value.actions.isEmpty }
    }

    static func load(_ events: [(DeviceContext, Event)], appId: Int64, on connection: PostgresConnection) throws {
        let writer = EventWriter(connection: connection, partitions: PartitionDays())
        var batches: [StagedBatch] = []
        for (context, group) in Dictionary(grouping: events, by: { $0.0 }) {
            batches.append(StagedBatch(appId: appId, receivedAt: day0, context: context, events: group.map(\.1)))
        }
        _ = try writer.commit(batches)
        try RollupStore().fold(on: connection)
    }

    /// The hours before `end` of the day rows the check reads from day0, as hourly rows.
    static func hourly(appId: Int64, to end: Int64, on connection: PostgresConnection) throws -> [RegressionRow] {
        try RegressionStore().days(appId: appId, from: day0.microseconds, to: end, on: connection).flatMap(\.hourly).filter { $0.hour < end }
    }

    static func describe(_ row: RegressionRow) -> String {
        let actions = row.actions.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ",")
        return "\(row.hour)|\(row.category)|\(row.appVersion)|\(row.platform)|\(row.delivered)|\(row.opens)|\(row.dismissals)|\(row.textReplies)|\(actions)"
    }

    @Test func rowsAreTheEventsOwnHourlyCounts() throws {
        let db = try TestDatabase.create()
        let connection = try db.connect()
        defer { connection.close() }
        let appId = try db.createApp("rows").appId
        let events = Self.events(seed: 11)
        try Self.load(events, appId: appId, on: connection)
        // Up to a whole hour in the middle of the third day: the later hours of that day are dropped.
        let end = Self.day0.microseconds + 2 * 86_400_000_000 + 13 * Self.hour
        let read = try Self.hourly(appId: appId, to: end, on: connection)
        let expected = Self.expectedRows(events, before: end)
        var got: [String: RegressionRow] = [:]
        for row in read {
            let key = "\(row.hour)|\(row.category)|\(row.appVersion)|\(row.platform)"
            #expect(got[key] == nil, "two rows for \(key)")
            got[key] = row
        }
        #expect(got.count == expected.count)
        #expect(got == expected)
        #expect(read.allSatisfy { $0.hour < end })
        // The same after `rollups rebuild` rewrote the days from the events.
        try RollupStore().rebuild(appId: appId, from: Self.day0, to: Self.day0.adding(seconds: 3 * 86_400), on: connection)
        let rebuilt = try Self.hourly(appId: appId, to: end, on: connection)
        #expect(rebuilt.count == read.count)
        #expect(Set(rebuilt.map(Self.describe)) == Set(read.map(Self.describe)))
    }

    /// The candidate is the newest version that delivered before the instant; its comparison
    /// starts on its first day and ends at the last whole hour, or at its horizon.
    @Test func theCheckReadsFromTheCandidatesFirstDayToTheLastWholeHourOrItsHorizon() throws {
        let db = try TestDatabase.create()
        let connection = try db.connect()
        defer { connection.close() }
        let appId = try db.createApp("window").appId
        try Self.load(Self.events(seed: 12), appId: appId, on: connection)
        let day: Int64 = 86_400_000_000
        let within = Timestamp(microseconds: Self.day0.microseconds + 2 * day + 13 * Self.hour + 1_800_000_000) // 13:30 on day 3
        let check = try RegressionStore().check(appId: appId, asOf: within, on: connection)
        #expect(check.comparison?.candidateVersion == "1.2")
        #expect(check.comparison?.baselineVersions == ["1.1", "1.0"])
        #expect(check.looksEnd == Self.day0.microseconds + 2 * day + 13 * Self.hour)
        #expect(check.daysRead == .init(from: Self.day0.microseconds + day, to: check.looksEnd))

        // Before 1.2's first delivery, 1.1 is the candidate and its first day is day 1.
        let early = try RegressionStore().check(appId: appId, asOf: Timestamp(microseconds: Self.day0.microseconds + 20 * Self.hour),
                                                on: connection)
        #expect(early.comparison?.candidateVersion == "1.1")
        #expect(early.daysRead?.from == Self.day0.microseconds)

        // A one-day horizon: 1.2's looks end with its first day, whatever the instant.
        var oneDay = RegressionConfiguration.default
        oneDay.horizonDays = 1
        let short = try RegressionStore(configuration: oneDay).check(appId: appId, asOf: within, on: connection)
        #expect(short.looksEnd == Self.day0.microseconds + 2 * day)
        #expect(short.comparison?.asOf == short.looksEnd)

        // Nothing delivered in the horizon before the instant: no comparison, and it says why.
        let before = try RegressionStore().check(appId: appId, asOf: Self.day0, on: connection)
        #expect(before.daysRead == nil)
        if case .noComparison(let reason) = before.evaluation {
            #expect(reason.contains("no app version delivered"))
        } else {
            Issue.record("expected no comparison before any delivery")
        }
    }

    @Test func bigintArraysParse() {
        #expect(PostgresValue.int64Array("{1,0,23}") == [1, 0, 23])
        #expect(PostgresValue.int64Array("{-4,9223372036854775807}") == [-4, .max])
        #expect(PostgresValue.int64Array("{}") == [])
        for bad in ["", "{", "{1,}", "{,1}", "{1}x", "{1 2}", "{NULL}", "{99999999999999999999}", "1,2", nil] {
            #expect(PostgresValue.int64Array(bad) == nil, "\(bad ?? "nil")")
        }
    }
}
