import Foundation
import TapwireStatistics
import Testing
@testable import TapwireCore

/// The rollup rows a commit adds (its finest rows) and what the fold derives from them, computed
/// without a database. The store's tests hold them equal to the SQL recomputation
/// (`RollupOracle`, sql/fresh/); these check a worked example by hand and a brute-force
/// recomputation written event by event.
@Suite("Rollup deltas")
struct RollupDeltasTests {
    /// The types engagement's rollups count: conversions and assignments have their own
    /// aggregates (docs/outcomes.md, docs/holdouts.md) and `add` leaves them out.
    static let engagementTypes: [EventType] = [.delivered, .response, .sent]

    static let hour: Int64 = 3_600_000_000
    static let day: Int64 = 24 * hour
    /// 2026-03-01T10:00:00Z.
    static let tenAM = Timestamp(microseconds: CivilCalendar.days(fromYear: 2026, month: 3, day: 1) * day + 10 * hour)

    func at(_ minutes: Int64) -> Timestamp { Self.tenAM.adding(microseconds: minutes * 60_000_000) }

    @Test func aWorkedExample() {
        let context = DeviceContext(appVersion: "2.0", platform: "iOS", osVersion: "18.1")
        let events = [
            Event(eventId: .v7(at: at(5)), type: .delivered, deviceTime: at(5), category: "chat", hasMedia: true,
                  mediaRequested: true, categoryRegistered: true, campaign: "spring"),
            Event(eventId: .v7(at: at(6)), type: .delivered, deviceTime: at(6), category: "chat", hasMedia: true,
                  mediaRequested: false, categoryRegistered: true, campaign: "spring"),
            // Opened 3 s after delivery: 4·log2(3) = 6.34 → bin 7.
            Event(eventId: .v7(at: at(7)), type: .response, deviceTime: at(7), category: "chat", actionIdentifier: SystemAction.open,
                  hasMedia: true, categoryRegistered: true, campaign: "spring", deliveredAt: at(7).adding(microseconds: -3_000_000)),
            // A 12-character reply, no delivery time.
            Event(eventId: .v7(at: at(8)), type: .response, deviceTime: at(8), category: "chat", actionIdentifier: "reply",
                  userTextLength: 12, hasMedia: true, categoryRegistered: true, campaign: "spring"),
            // Dismissed: counted, never binned.
            Event(eventId: .v7(at: at(9)), type: .response, deviceTime: at(9), category: "chat", actionIdentifier: SystemAction.dismiss,
                  hasMedia: true, categoryRegistered: true, campaign: "spring", deliveredAt: at(1)),
            // The next hour, text-only, category not registered on the device.
            Event(eventId: .v7(at: at(65)), type: .delivered, deviceTime: at(65), category: "chat", categoryRegistered: false),
        ]
        var deltas = RollupDeltas()
        deltas.add(events, appId: 7, context: context)
        deltas.finishFinest()

        let h10 = Self.tenAM.microseconds, h11 = h10 + Self.hour, q1100 = h11, midnight = h10 - 10 * Self.hour
        func finest(_ bucket: Int64, _ campaign: String, media: Bool) -> RollupDeltas.CountsKey {
            .init(dimensions: .init(appId: 7, grain: 5, bucket: bucket, category: "chat", appVersion: "2.0", platform: "iOS",
                                    campaign: campaign, variant: "", os: "18"), hasMedia: media)
        }
        var rich = RollupDeltas.Counts()
        rich.delivered = 2
        rich.mediaRequested = 1
        rich.opens = 1
        rich.dismissals = 1
        rich.actions = 1
        rich.replies = 1
        var text = RollupDeltas.Counts()
        text.delivered = 1
        // Minutes 5-9 lie in the 10:00 quarter hour, minute 65 in 11:00.
        #expect(deltas.counts == [finest(h10, "spring", media: true): rich, finest(q1100, "", media: false): text])

        let rows = deltas.derive()
        func totals(_ grain: Int16, _ bucket: Int64, media: Bool) -> RollupRows.TotalsKey {
            .init(appId: 7, grain: grain, bucket: bucket, category: "chat", hasMedia: media)
        }
        // The quarter hour, the day, and the blocks of 2, 4, 8 and 16 days that hold 2026-03-01
        // (day 20513 since 1970: blocks from days 20512, 20512, 20512 and 20512).
        let block = RollupDeltas.floor(midnight, 16 * Self.day)
        #expect(block == midnight - Self.day && RollupRows.Grain.block(of: midnight, grain: 3) == block)
        var expectedTotals: [RollupRows.TotalsKey: RollupDeltas.Counts] = [totals(0, h10, media: true): rich, totals(0, q1100, media: false): text]
        for grain in RollupRows.Grain.dayBlocks {
            let bucket = RollupRows.Grain.block(of: midnight, grain: grain)
            expectedTotals[totals(grain, bucket, media: true)] = rich
            expectedTotals[totals(grain, bucket, media: false)] = text
        }
        #expect(rows.totals == expectedTotals)
        // Engaged: the open and the reply, not the dismissal.
        #expect(rows.trend == [.init(appId: 7, quarter: h10, category: "chat"): .init(first: 2, second: 2),
                               .init(appId: 7, quarter: q1100, category: "chat"): .init(first: 1, second: 0)])
        #expect(rows.dismissQuarters == [.init(appId: 7, quarter: h10, category: "chat", appVersion: "2.0"): .init(first: 2, second: 1),
                                         .init(appId: 7, quarter: q1100, category: "chat", appVersion: "2.0"): .init(first: 1, second: 0)])
        #expect(rows.dismissBase == Dictionary(uniqueKeysWithValues: RollupRows.Grain.dayBlocks.map {
            (RollupRows.DismissKey(appId: 7, grain: $0, bucket: RollupRows.Grain.block(of: midnight, grain: $0), category: "chat",
                                   appVersion: "2.0"), RollupRows.Pair(first: 3, second: 1))
        }))
        #expect(rows.strata == [
            .init(appId: 7, day: midnight, category: "chat", campaign: "spring", platform: "iOS", hasMedia: true): .init(first: 2, second: 2),
            .init(appId: 7, day: midnight, category: "chat", campaign: "", platform: "iOS", hasMedia: false): .init(first: 1, second: 0),
        ])
        #expect(rows.marginals[.init(appId: 7, day: midnight, dimension: .os, value: "18", category: "chat", hasMedia: true)]
                == { var m = RollupRows.MarginalCounts(); m.add(rich); return m }())
        #expect(rows.marginals.count == 2 * ReportDimension.allCases.count)
        let grains = [(Int16(0), h10)] + RollupRows.Grain.dayBlocks.map { ($0, RollupRows.Grain.block(of: midnight, grain: $0)) }
        #expect(rows.totalActions == Dictionary(uniqueKeysWithValues: grains.map {
            (RollupRows.TotalActionKey(appId: 7, grain: $0.0, bucket: $0.1, category: "chat", action: "reply"), Int64(1))
        }))
        var bins: [RollupRows.TotalBinKey: Int64] = [:]
        for (grain, bucket) in grains {
            bins[.init(appId: 7, grain: grain, bucket: bucket, category: "chat", metric: .replyLength, bin: 12)] = 1
            bins[.init(appId: 7, grain: grain, bucket: bucket, category: "chat", metric: .timeToResponse, bin: 7)] = 1
        }
        #expect(rows.totalHistograms == bins)
        let release = RollupRows.ReleaseKey(appId: 7, hour: h10, category: "chat", appVersion: "2.0", platform: "iOS")
        #expect(rows.releaseCounts[release] == { var r = RollupRows.ReleaseCounts(); r.add(rich); return r }())
        #expect(rows.releaseActions == [.init(release: release, action: "reply"): 1])

        func usage(_ bucket: Int64, _ type: EventType, _ action: String, _ registered: Int16) -> RollupDeltas.UsageKey {
            .init(appId: 7, bucket: bucket, appVersion: "2.0", platform: "iOS", type: type, category: "chat", action: action,
                  categoryRegistered: registered)
        }
        #expect(deltas.usageHourly == [
            usage(h10, .delivered, "", 1): .init(count: 2, firstSeen: at(5), lastSeen: at(6)),
            usage(h10, .response, SystemAction.open, 1): .init(count: 1, firstSeen: at(7), lastSeen: at(7)),
            usage(h10, .response, "reply", 1): .init(count: 1, firstSeen: at(8), lastSeen: at(8)),
            usage(h10, .response, SystemAction.dismiss, 1): .init(count: 1, firstSeen: at(9), lastSeen: at(9)),
            usage(h11, .delivered, "", 0): .init(count: 1, firstSeen: at(65), lastSeen: at(65)),
        ])
        #expect(rows.usageDaily[usage(midnight, .delivered, "", 1)] == .init(count: 2, firstSeen: at(5), lastSeen: at(6)))
        #expect(rows.usageDaily.count == 5)
    }

    /// Random events, added in random splits, against a recomputation of every table's rows
    /// that walks every event directly (no shapes, no finest rows).
    @Test func equalsABruteForceRecomputation() {
        var rng = SeededGenerator(seed: 1103)
        let actions = [SystemAction.open, SystemAction.dismiss, "reply", "like", nil]
        var deltas = RollupDeltas()
        var all: [(Int64, DeviceContext, Event)] = []
        for _ in 0..<40 {
            let appId = Int64.random(in: 1...2, using: &rng)
            let context = DeviceContext(appVersion: ["1", "2"].randomElement(using: &rng)!, platform: ["iOS", "macOS"].randomElement(using: &rng)!,
                                        osVersion: ["18.1", "17", nil].randomElement(using: &rng)!)
            var events: [Event] = []
            for _ in 0..<Int.random(in: 1...60, using: &rng) {
                let time = at(Int64.random(in: -3000...3000, using: &rng))
                let type = Self.engagementTypes.randomElement(using: &rng)!
                let action = type == .response ? actions.randomElement(using: &rng)! : nil
                let delivered: Timestamp? = Bool.random(using: &rng) ? time.adding(microseconds: -Int64.random(in: -5_000_000...90_000_000_000, using: &rng)) : nil
                events.append(Event(eventId: .v7(at: time, using: &rng), type: type, deviceTime: time, category: ["a", "b", ""].randomElement(using: &rng)!,
                                    actionIdentifier: action, userTextLength: Bool.random(using: &rng) ? Int32.random(in: 0...900, using: &rng) : nil,
                                    hasMedia: Bool.random(using: &rng), mediaRequested: [true, false, nil].randomElement(using: &rng)!,
                                    categoryRegistered: [true, false, nil].randomElement(using: &rng)!,
                                    campaign: ["x", nil].randomElement(using: &rng)!, variant: ["A", "B", nil].randomElement(using: &rng)!,
                                    deliveredAt: delivered))
            }
            deltas.add(events, appId: appId, context: context)
            if Bool.random(using: &rng) { deltas.finishFinest() }
            all += events.map { (appId, context, $0) }
        }
        deltas.finishFinest()
        let rows = deltas.derive()

        var expected = RollupRows()
        for (appId, context, e) in all {
            let t = e.eventTime.microseconds
            let hourStart = t - ((t % Self.hour) + Self.hour) % Self.hour
            let quarterStart = t - ((t % (Self.hour / 4)) + Self.hour / 4) % (Self.hour / 4)
            let dayStart = t - ((t % Self.day) + Self.day) % Self.day
            let registered = e.type == .response && e.actionIdentifier != nil && e.actionIdentifier != SystemAction.open
                && e.actionIdentifier != SystemAction.dismiss
            var c = RollupDeltas.Counts()
            if e.type == .delivered { c.delivered += 1 }
            if e.type == .sent { c.sent += 1 }
            if e.type == .delivered && e.mediaRequested == true { c.mediaRequested += 1 }
            if e.type == .response && e.actionIdentifier == SystemAction.open { c.opens += 1 }
            if e.type == .response && e.actionIdentifier == SystemAction.dismiss { c.dismissals += 1 }
            if registered { c.actions += 1 }
            if registered && e.userTextLength != nil { c.replies += 1 }
            let engaged = c.opens + c.actions
            let blocks = RollupRows.Grain.dayBlocks.map { ($0, RollupRows.Grain.block(of: dayStart, grain: $0)) }
            for (grain, bucket) in [(Int16(0), quarterStart)] + blocks {
                expected.totals[.init(appId: appId, grain: grain, bucket: bucket, category: e.category, hasMedia: e.hasMedia), default: .init()].add(c)
                if registered { expected.totalActions[.init(appId: appId, grain: grain, bucket: bucket, category: e.category, action: e.actionIdentifier!), default: 0] += 1 }
                guard e.type == .response, let action = e.actionIdentifier, action != SystemAction.dismiss else { continue }
                if let length = e.userTextLength, action != SystemAction.open {
                    expected.totalHistograms[.init(appId: appId, grain: grain, bucket: bucket, category: e.category, metric: .replyLength,
                                                   bin: Int16(min(max(Int(length), 0), 501))), default: 0] += 1
                }
                if let delivered = e.deliveredAt {
                    let seconds = Double(t - delivered.microseconds) / 1e6
                    let bin = seconds < 1 ? 0 : min(100, 1 + Int((4 * log2(seconds)).rounded(.down)))
                    expected.totalHistograms[.init(appId: appId, grain: grain, bucket: bucket, category: e.category, metric: .timeToResponse,
                                                   bin: Int16(bin)), default: 0] += 1
                }
            }
            if c.delivered + engaged > 0 {
                expected.trend[.init(appId: appId, quarter: quarterStart, category: e.category), default: .zero].add(c.delivered, engaged)
                expected.strata[.init(appId: appId, day: dayStart, category: e.category, campaign: e.campaign ?? "", platform: context.platform,
                                      hasMedia: e.hasMedia), default: .zero].add(c.delivered, engaged)
            }
            expected.dismissQuarters[.init(appId: appId, quarter: quarterStart, category: e.category, appVersion: context.appVersion),
                                     default: .zero].add(c.delivered, c.dismissals)
            for (grain, bucket) in blocks {
                expected.dismissBase[.init(appId: appId, grain: grain, bucket: bucket, category: e.category, appVersion: context.appVersion),
                                     default: .zero].add(c.delivered, c.dismissals)
            }
            if c.delivered + c.sent + c.opens + c.actions > 0 {
                let values = DimensionValues(appVersion: context.appVersion, platform: context.platform, campaign: e.campaign ?? "",
                                             variant: e.variant ?? "", os: ReportDimension.osMajor(context.osVersion))
                for dimension in ReportDimension.allCases {
                    expected.marginals[.init(appId: appId, day: dayStart, dimension: dimension, value: values[dimension], category: e.category,
                                             hasMedia: e.hasMedia), default: .init()].add(c)
                }
            }
            let release = RollupRows.ReleaseKey(appId: appId, hour: hourStart, category: e.category, appVersion: context.appVersion,
                                                platform: context.platform)
            expected.releaseCounts[release, default: .init()].add(c)
            if registered { expected.releaseActions[.init(release: release, action: e.actionIdentifier!), default: 0] += 1 }
            let registeredFlag: Int16 = e.categoryRegistered == nil ? -1 : (e.categoryRegistered! ? 1 : 0)
            for (bucket, daily) in [(hourStart, false), (dayStart, true)] {
                let u = RollupDeltas.UsageKey(appId: appId, bucket: bucket, appVersion: context.appVersion, platform: context.platform,
                                              type: e.type, category: e.category, action: e.actionIdentifier ?? "", categoryRegistered: registeredFlag)
                let old = daily ? expected.usageDaily[u] : expected.usageHourly[u]
                let new = RollupDeltas.Usage(count: (old?.count ?? 0) + 1, firstSeen: min(old?.firstSeen ?? e.eventTime, e.eventTime),
                                             lastSeen: max(old?.lastSeen ?? e.eventTime, e.eventTime))
                if daily { expected.usageDaily[u] = new } else { expected.usageHourly[u] = new }
            }
        }
        #expect(rows.totals == expected.totals)
        #expect(rows.totalActions == expected.totalActions)
        #expect(rows.totalHistograms == expected.totalHistograms)
        #expect(rows.trend == expected.trend)
        #expect(rows.dismissBase == expected.dismissBase)
        #expect(rows.dismissQuarters == expected.dismissQuarters)
        #expect(rows.strata == expected.strata)
        #expect(rows.marginals == expected.marginals)
        #expect(rows.releaseCounts == expected.releaseCounts)
        #expect(rows.releaseActions == expected.releaseActions)
        #expect(rows.usageHourly == expected.usageHourly)
        #expect(rows.usageDaily == expected.usageDaily)
        #expect(rows == expected)
        #expect(expected.totals.count > 100 && expected.totalHistograms.count > 50 && expected.strata.count > 20)
        // The rebuild's rows: the same without the blocks of 2 to 16 days, which it makes from
        // the days' rows.
        var withoutBlocks = expected
        withoutBlocks.totals = expected.totals.filter { $0.key.grain <= RollupRows.Grain.day }
        withoutBlocks.totalActions = expected.totalActions.filter { $0.key.grain <= RollupRows.Grain.day }
        withoutBlocks.totalHistograms = expected.totalHistograms.filter { $0.key.grain <= RollupRows.Grain.day }
        withoutBlocks.dismissBase = expected.dismissBase.filter { $0.key.grain <= RollupRows.Grain.day }
        #expect(withoutBlocks.dismissBase.count < expected.dismissBase.count && withoutBlocks.totals.count < expected.totals.count)
        #expect(deltas.derive(blocksOfDays: false) == withoutBlocks)
    }

    /// `derive` sums a day's quarter-hour keys before it makes the day's rows (strata, marginals,
    /// totals, dismiss base): a key that the strata or the marginals leave out at its quarter
    /// hour is left out of the day too, and one they count makes the day's row even when the
    /// sums cancel (finest rows merged with both signs), as when each key made its own.
    @Test func aDaysRowsCountTheQuarterHourKeysTheirRulesCount() {
        let midnight = CivilCalendar.days(fromYear: 2026, month: 3, day: 1) * Self.day
        func key(_ quarter: Int64, campaign: String) -> RollupDeltas.CountsKey {
            .init(dimensions: .init(appId: 3, grain: 5, bucket: midnight + quarter * 900_000_000, category: "chat", appVersion: "2.0",
                                    platform: "iOS", campaign: campaign, variant: "", os: "18"), hasMedia: false)
        }
        var deltas = RollupDeltas()
        var plus = RollupDeltas.Counts()
        plus.delivered = 2
        plus.opens = 1
        var minus = RollupDeltas.Counts()
        minus.delivered = -2
        minus.opens = -1
        var dismissed = RollupDeltas.Counts()
        dismissed.dismissals = 4
        // Campaign "a": counted at both quarter hours, summing to nothing over the day.
        deltas.merge(key(1, campaign: "a"), plus)
        deltas.merge(key(2, campaign: "a"), minus)
        // Campaign "b": dismissals only, which neither the strata nor the marginals count.
        deltas.merge(key(1, campaign: "b"), dismissed)
        deltas.merge(key(3, campaign: "b"), dismissed)
        let rows = deltas.derive(blocksOfDays: false)

        func stratum(_ campaign: String) -> RollupRows.StratumKey {
            .init(appId: 3, day: midnight, category: "chat", campaign: campaign, platform: "iOS", hasMedia: false)
        }
        #expect(rows.strata == [stratum("a"): .zero])
        #expect(Set(rows.marginals.keys.map(\.value)) == ["a", "2.0", "iOS", "", "18"])
        #expect(rows.marginals.values.allSatisfy { $0 == RollupRows.MarginalCounts() })
        var day = RollupDeltas.Counts()
        day.dismissals = 8
        #expect(rows.totals[.init(appId: 3, grain: RollupRows.Grain.day, bucket: midnight, category: "chat", hasMedia: false)] == day)
        #expect(rows.dismissBase == [.init(appId: 3, grain: RollupRows.Grain.day, bucket: midnight, category: "chat", appVersion: "2.0"):
                                        .init(first: 0, second: 8)])
        #expect(rows.trend.count == 2 && rows.dismissQuarters.count == 3)
    }

    /// The OS major version is the text before the first byte '.', as SQL's split_part reads it
    /// (sql/fresh/19_rollup_marginals.sql), also when a combining mark follows the dot: split on
    /// the Character "." took ".\u{301}" for another character and kept the whole version.
    @Test func theOSMajorVersionIsCutAtTheFirstDotAsSQLCutsIt() {
        #expect(ReportDimension.osMajor("18.1") == "18")
        #expect(ReportDimension.osMajor("26") == "26")
        #expect(ReportDimension.osMajor(".5") == "")
        #expect(ReportDimension.osMajor(nil) == "")
        #expect(ReportDimension.osMajor("18.\u{301}2") == "18")
    }

    /// The fold's path: the finest rows of several commits, merged, then every table's rows
    /// derived once, equal the rows derived from all the events at once.
    @Test func finestRowsOfSeveralCommitsDeriveTheSameRows() {
        var rng = SeededGenerator(seed: 41)
        var all = RollupDeltas()
        var merged = RollupDeltas()
        for commit in 0..<4 {
            var part = RollupDeltas()
            for i in 0..<300 {
                let type = Self.engagementTypes.randomElement(using: &rng)!
                let action = type == .response ? [SystemAction.open, SystemAction.dismiss, "reply", "like"].randomElement(using: &rng)! : nil
                let time = at(Int64.random(in: -1500...1500, using: &rng))
                let event = Event(eventId: .v7(at: time, using: &rng), type: type, deviceTime: time,
                                  category: ["chat", "promo"].randomElement(using: &rng)!, actionIdentifier: action,
                                  userTextLength: action == "reply" ? Int32.random(in: 0...300, using: &rng) : nil,
                                  hasMedia: Bool.random(using: &rng), categoryRegistered: [true, false, nil].randomElement(using: &rng)!,
                                  campaign: ["w", nil].randomElement(using: &rng)!, variant: ["A", "B", nil].randomElement(using: &rng)!,
                                  deliveredAt: type == .response ? time.adding(microseconds: -Int64.random(in: 0...90_000_000, using: &rng)) : nil)
                let context = DeviceContext(appVersion: ["1", "2"][(commit + i) % 2], platform: ["iOS", "watchOS"][i % 2],
                                            osVersion: ["26.0", "18.4"][commit % 2])
                part.add(event, appId: Int64(1 + i % 2), context: context)
                all.add(event, appId: Int64(1 + i % 2), context: context)
            }
            part.finishFinest()
            merged.merge(part)
        }
        all.finishFinest()
        #expect(merged == all)
        let rows = merged.derive()
        #expect(rows == all.derive())
        #expect(rows.strata.count > 4 && rows.marginals.keys.contains { $0.dimension == .os && $0.value == "26" })
    }

    /// A commit's finest rows of registered actions keep the category and the release (version,
    /// platform), and of histogram bins the category only: all `derive` reads of them. Many
    /// campaigns, variants and OS versions then add no rows of their own. A batch of an older
    /// collector, whose actions and bins carried every dimension, derives the same rows, alone
    /// or merged with this one's (a rolling upgrade folds both).
    @Test func actionsAndBinsKeepOnlyWhatIsReadOfThem() {
        var rng = SeededGenerator(seed: 4_033)
        var deltas = RollupDeltas()
        // The same events' actions and bins by every dimension, as a collector before this change stored them.
        var actionsByEveryDimension: [RollupDeltas.ActionKey: Int64] = [:]
        var binsByEveryDimension: [RollupDeltas.HistogramKey: Int64] = [:]
        for i in 0..<600 {
            let context = DeviceContext(appVersion: ["6.0", "6.1", "6.2"][i % 3], platform: ["iOS", "iPadOS"][(i / 3) % 2],
                                        osVersion: ["18.1", "26.0"][(i / 6) % 2])
            let time = at(Int64.random(in: 0...14, using: &rng)) // one quarter hour
            let action = [SystemAction.open, SystemAction.dismiss, "reply", "like"].randomElement(using: &rng)!
            let event = Event(eventId: .v7(at: time, using: &rng), type: .response, deviceTime: time,
                              category: ["chat", "promo"].randomElement(using: &rng)!, actionIdentifier: action,
                              userTextLength: action == "reply" ? Int32.random(in: 0...20, using: &rng) : nil,
                              hasMedia: Bool.random(using: &rng), categoryRegistered: true, campaign: "campaign-\(i % 40)",
                              variant: ["A", "B", nil].randomElement(using: &rng)!,
                              deliveredAt: time.adding(microseconds: -Int64.random(in: 0...90_000_000, using: &rng)))
            deltas.add(event, appId: 3, context: context)
            let every = RollupDeltas.Dimensions(appId: 3, grain: RollupDeltas.Grain.quarter,
                                                bucket: RollupDeltas.floor(time.microseconds, RollupDeltas.microsecondsPerQuarterHour),
                                                category: event.category, appVersion: context.appVersion, platform: context.platform,
                                                campaign: event.campaign ?? "", variant: event.variant ?? "",
                                                os: ReportDimension.osMajor(context.osVersion))
            if action == "reply" || action == "like" { actionsByEveryDimension[.init(dimensions: every, action: action), default: 0] += 1 }
            for (metric, bin) in RollupDeltas.bins(of: event) { binsByEveryDimension[.init(dimensions: every, metric: metric, bin: bin), default: 0] += 1 }
        }
        deltas.finishFinest()

        #expect(deltas.histograms.keys.allSatisfy { k in
            let d = k.dimensions
            return d.appVersion.isEmpty && d.platform.isEmpty && d.campaign.isEmpty && d.variant.isEmpty && d.os == ""
        })
        #expect(deltas.actions.keys.allSatisfy { k in
            let d = k.dimensions
            return !d.appVersion.isEmpty && !d.platform.isEmpty && d.campaign.isEmpty && d.variant.isEmpty && d.os == ""
        })
        #expect(deltas.counts.keys.contains { $0.dimensions.campaign == "campaign-7" && $0.dimensions.os == "26" })
        // Fewer rows: at most the categories × quarter hours × bins in use, against one per bin and combination.
        #expect(deltas.histograms.count * 3 < binsByEveryDimension.count)
        #expect(deltas.actions.count * 3 < actionsByEveryDimension.count)
        #expect(deltas.histograms.values.reduce(0, +) == binsByEveryDimension.values.reduce(0, +))
        #expect(deltas.actions.values.reduce(0, +) == actionsByEveryDimension.values.reduce(0, +))

        // An older collector's batch: the same counts and usage, its actions and bins by every dimension.
        var older = RollupDeltas()
        for (key, c) in deltas.counts { older.merge(key, c) }
        for (key, usage) in deltas.usageHourly { older.mergeHourlyUsage(key, usage) }
        for (key, n) in actionsByEveryDimension { older.merge(key, n) }
        for (key, n) in binsByEveryDimension { older.merge(key, n) }
        let rows = deltas.derive()
        #expect(older.derive() == rows)
        #expect(!rows.totalHistograms.isEmpty && !rows.releaseActions.isEmpty && !rows.totalActions.isEmpty)
        // Half of the events' actions and bins from each kind of collector, folded together.
        var mixed = RollupDeltas()
        for (key, c) in deltas.counts { mixed.merge(key, c) }
        for (key, usage) in deltas.usageHourly { mixed.mergeHourlyUsage(key, usage) }
        for (key, n) in binsByEveryDimension where key.dimensions.category == "chat" { mixed.merge(key, n) }
        for (key, n) in deltas.histograms where key.dimensions.category != "chat" { mixed.merge(key, n) }
        for (key, n) in actionsByEveryDimension where key.dimensions.appVersion == "6.0" { mixed.merge(key, n) }
        for (key, n) in deltas.actions where key.dimensions.appVersion != "6.0" { mixed.merge(key, n) }
        #expect(mixed.derive() == rows)
    }

    /// Quarter hours are the finest cut, so every zone's local midnight is a bucket edge: Nepal's
    /// (+05:45) is 18:15 UTC, and the last microsecond before it falls in the 18:00 quarter, the
    /// midnight itself in the 18:15 one. Before 1970 the cut is a floor too.
    @Test func quarterHoursCutAtNepalsMidnight() {
        let midnight = Timestamp(iso8601: "2026-11-02T18:15:00Z")! // 2026-11-03 00:00 in Asia/Kathmandu
        let quarter = Self.hour / 4
        let context = DeviceContext(appVersion: "1", platform: "iOS")
        var deltas = RollupDeltas()
        for t in [midnight.adding(microseconds: -1), midnight, midnight.adding(microseconds: quarter - 1), Timestamp(microseconds: -1)] {
            deltas.add(Event(eventId: .v7(at: t), type: .delivered, deviceTime: t, category: "c"), appId: 1, context: context)
        }
        deltas.finishFinest()
        let rows = deltas.derive()
        func delivered(_ grain: Int16) -> [Int64: Int64] {
            rows.totals.filter { $0.key.grain == grain }.reduce(into: [:]) { $0[$1.key.bucket, default: 0] += $1.value.delivered }
        }
        #expect(delivered(RollupRows.Grain.quarter) == [midnight.microseconds - quarter: 1, midnight.microseconds: 2, -quarter: 1])
        let day = RollupDeltas.floor(midnight.microseconds, Self.day)
        #expect(delivered(RollupRows.Grain.day) == [day: 3, -Self.day: 1])
        // Blocks are aligned on 1970-01-01, so the day before it starts a block of every size.
        #expect(delivered(6) == [RollupDeltas.floor(day, 16 * Self.day): 3, -16 * Self.day: 1])
    }

    @Test func latencyBinsFollowPostgresIntervalArithmetic() {
        // Days and µs add up as PostgreSQL's date_part('epoch', interval) does.
        #expect(LatencyBins.bin(forMicroseconds: 999_999) == 0)
        #expect(LatencyBins.bin(forMicroseconds: 1_000_000) == 1)
        #expect(LatencyBins.bin(forMicroseconds: -86_400_000_000 * 3) == 0)
        #expect(LatencyBins.bin(forMicroseconds: 2_000_000) == 5)
        #expect(LatencyBins.bin(forMicroseconds: 1_999_999) == 4)
        // 2 days + 1 s = 172 801 s: 4·log2 = 69.6 → 70.
        #expect(LatencyBins.bin(forMicroseconds: 172_801_000_000) == 70)
        #expect(LatencyBins.bin(forMicroseconds: .max) == LatencyBins.lastBin)
    }
}

@Suite("Claim strategy")
struct ClaimStrategyTests {
    @Test func bulkUntilADuplicateThenSkippingForAWhile() {
        var s = ClaimStrategy(cautiousGroups: 3)
        #expect(s.mode == .bulk)
        s.committed(storedBefore: 0)
        #expect(s.mode == .bulk)
        s.bulkClaimHitDuplicate()
        #expect(s.mode == .skipping)
        s.committed(storedBefore: 5) // the retried group met the duplicate
        for _ in 0..<3 {
            #expect(s.mode == .skipping)
            s.committed(storedBefore: 0)
        }
        #expect(s.mode == .bulk)
    }

    @Test func duplicatesWhileSkippingExtendTheCautiousSpell() {
        var s = ClaimStrategy(cautiousGroups: 2)
        s.bulkClaimHitDuplicate()
        s.committed(storedBefore: 1)
        s.committed(storedBefore: 0)
        s.committed(storedBefore: 4)
        #expect(s.mode == .skipping)
        s.committed(storedBefore: 0)
        #expect(s.mode == .skipping)
        s.committed(storedBefore: 0)
        #expect(s.mode == .bulk)
    }

    @Test func withNoCautionTheFailedGroupStillRetriesSkipping() {
        var s = ClaimStrategy(cautiousGroups: 0)
        s.bulkClaimHitDuplicate()
        #expect(s.mode == .skipping)
        s.committed(storedBefore: 1)
        #expect(s.mode == .bulk)
    }
}
