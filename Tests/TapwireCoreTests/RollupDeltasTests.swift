import Foundation
import TapwireStatistics
import Testing
@testable import TapwireCore

/// The rollup rows a commit adds, computed without a database. The store's tests hold them
/// equal to the SQL recomputation (`RollupOracle`, sql/fresh/); these check a worked
/// example by hand and a brute-force recomputation written event by event.
@Suite("Rollup deltas")
struct RollupDeltasTests {
    static let hour: Int64 = 3_600_000_000
    static let day: Int64 = 24 * hour
    /// 2026-03-01T10:00:00Z.
    static let tenAM = Timestamp(microseconds: CivilCalendar.days(fromYear: 2026, month: 3, day: 1) * day + 10 * hour)

    func at(_ minutes: Int64) -> Timestamp { Self.tenAM.adding(microseconds: minutes * 60_000_000) }

    @Test func aWorkedExample() {
        let context = DeviceContext(appVersion: "2.0", platform: "iOS")
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
        deltas.finish()

        let h10 = Self.tenAM.microseconds, h11 = h10 + Self.hour, midnight = h10 - 10 * Self.hour
        func key(_ grain: Int16, _ bucket: Int64, _ version: String = "", _ platform: String = "", _ campaign: String = "",
                 media: Bool = true) -> RollupDeltas.CountsKey {
            .init(dimensions: .init(appId: 7, grain: grain, bucket: bucket, category: "chat", appVersion: version, platform: platform,
                                    campaign: campaign, variant: ""), hasMedia: media)
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
        #expect(deltas.counts == [
            key(0, h10, "2.0", "iOS", "spring"): rich, key(1, h10, "2.0"): rich, key(4, midnight, "2.0", "iOS", "spring"): rich,
            key(5, h10, "2.0", "iOS", "spring"): rich, key(6, h10, "2.0"): rich,
            key(0, h11, "2.0", "iOS", media: false): text, key(1, h11, "2.0", media: false): text,
            key(5, h11, "2.0", "iOS", media: false): text, key(6, h11, "2.0", media: false): text,
            key(4, midnight, "2.0", "iOS", media: false): text,
        ])
        func dims(_ grain: Int16, _ bucket: Int64, all: Bool) -> RollupDeltas.Dimensions {
            .init(appId: 7, grain: grain, bucket: bucket, category: "chat", appVersion: all ? "2.0" : "", platform: all ? "iOS" : "",
                  campaign: all ? "spring" : "", variant: "")
        }
        let plain = [dims(0, h10, all: true), dims(2, h10, all: false), dims(3, midnight, all: false), dims(5, h10, all: true)]
        #expect(deltas.actions == Dictionary(uniqueKeysWithValues: plain.map { (RollupDeltas.ActionKey(dimensions: $0, action: "reply"), Int64(1)) }))
        var bins: [RollupDeltas.HistogramKey: Int64] = [:]
        for d in plain {
            bins[.init(dimensions: d, metric: .replyLength, bin: 12)] = 1
            bins[.init(dimensions: d, metric: .timeToResponse, bin: 7)] = 1
        }
        #expect(deltas.histograms == bins)

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
        #expect(deltas.usageDaily[usage(midnight, .delivered, "", 1)] == .init(count: 2, firstSeen: at(5), lastSeen: at(6)))
        #expect(deltas.usageDaily.count == 5)
    }

    /// Random events, added in random splits, against a recomputation that walks every event
    /// and every grain directly (no shapes).
    @Test func equalsABruteForceRecomputation() {
        var rng = SeededGenerator(seed: 1103)
        let actions = [SystemAction.open, SystemAction.dismiss, "reply", "like", nil]
        var deltas = RollupDeltas()
        var all: [(Int64, DeviceContext, Event)] = []
        for _ in 0..<40 {
            let appId = Int64.random(in: 1...2, using: &rng)
            let context = DeviceContext(appVersion: ["1", "2"].randomElement(using: &rng)!, platform: ["iOS", "macOS"].randomElement(using: &rng)!)
            var events: [Event] = []
            for _ in 0..<Int.random(in: 1...60, using: &rng) {
                let time = at(Int64.random(in: -3000...3000, using: &rng))
                let type = EventType.allCases.randomElement(using: &rng)!
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
            if Bool.random(using: &rng) { deltas.finish() }
            all += events.map { (appId, context, $0) }
        }
        deltas.finish()

        var counts: [RollupDeltas.CountsKey: RollupDeltas.Counts] = [:]
        var actionRows: [RollupDeltas.ActionKey: Int64] = [:]
        var histogramRows: [RollupDeltas.HistogramKey: Int64] = [:]
        var hourly: [RollupDeltas.UsageKey: RollupDeltas.Usage] = [:]
        for (appId, context, e) in all {
            let t = e.eventTime.microseconds
            let hourStart = t - ((t % Self.hour) + Self.hour) % Self.hour
            let quarterStart = t - ((t % (Self.hour / 4)) + Self.hour / 4) % (Self.hour / 4)
            let dayStart = t - ((t % Self.day) + Self.day) % Self.day
            let campaign = e.campaign ?? "", variant = e.variant ?? ""
            let sets: [(Int16, Int64, String, String, String, String)] = [
                (0, hourStart, context.appVersion, context.platform, campaign, variant), (1, hourStart, context.appVersion, "", "", ""),
                (4, dayStart, context.appVersion, context.platform, campaign, ""),
                (5, quarterStart, context.appVersion, context.platform, campaign, variant), (6, quarterStart, context.appVersion, "", "", ""),
            ]
            let registered = e.type == .response && e.actionIdentifier != nil && e.actionIdentifier != SystemAction.open
                && e.actionIdentifier != SystemAction.dismiss
            for (grain, bucket, version, platform, c, v) in sets {
                let k = RollupDeltas.CountsKey(dimensions: .init(appId: appId, grain: grain, bucket: bucket, category: e.category,
                                                                 appVersion: version, platform: platform, campaign: c, variant: v),
                                               hasMedia: e.hasMedia)
                var row = counts[k] ?? RollupDeltas.Counts()
                if e.type == .delivered { row.delivered += 1 }
                if e.type == .sent { row.sent += 1 }
                if e.type == .delivered && e.mediaRequested == true { row.mediaRequested += 1 }
                if e.type == .response && e.actionIdentifier == SystemAction.open { row.opens += 1 }
                if e.type == .response && e.actionIdentifier == SystemAction.dismiss { row.dismissals += 1 }
                if registered { row.actions += 1 }
                if registered && e.userTextLength != nil { row.replies += 1 }
                counts[k] = row
            }
            for (grain, bucket, all) in [(Int16(0), hourStart, true), (2, hourStart, false), (3, dayStart, false), (5, quarterStart, true)] {
                let d = RollupDeltas.Dimensions(appId: appId, grain: grain, bucket: bucket, category: e.category,
                                                appVersion: all ? context.appVersion : "", platform: all ? context.platform : "",
                                                campaign: all ? campaign : "", variant: all ? variant : "")
                if registered { actionRows[.init(dimensions: d, action: e.actionIdentifier!), default: 0] += 1 }
                guard e.type == .response, let action = e.actionIdentifier, action != SystemAction.dismiss else { continue }
                if let length = e.userTextLength, action != SystemAction.open {
                    histogramRows[.init(dimensions: d, metric: .replyLength, bin: Int16(min(max(Int(length), 0), 501))), default: 0] += 1
                }
                if let delivered = e.deliveredAt {
                    let seconds = Double(t - delivered.microseconds) / 1e6
                    let bin = seconds < 1 ? 0 : min(100, 1 + Int((4 * log2(seconds)).rounded(.down)))
                    histogramRows[.init(dimensions: d, metric: .timeToResponse, bin: Int16(bin)), default: 0] += 1
                }
            }
            let u = RollupDeltas.UsageKey(appId: appId, bucket: hourStart, appVersion: context.appVersion, platform: context.platform,
                                          type: e.type, category: e.category, action: e.actionIdentifier ?? "",
                                          categoryRegistered: e.categoryRegistered == nil ? -1 : (e.categoryRegistered! ? 1 : 0))
            let old = hourly[u]
            hourly[u] = .init(count: (old?.count ?? 0) + 1, firstSeen: min(old?.firstSeen ?? e.eventTime, e.eventTime),
                              lastSeen: max(old?.lastSeen ?? e.eventTime, e.eventTime))
        }
        #expect(deltas.counts == counts)
        #expect(deltas.actions == actionRows)
        #expect(deltas.histograms == histogramRows)
        #expect(deltas.usageHourly == hourly)
        #expect(deltas.usageDaily.values.reduce(0) { $0 + $1.count } == Int64(all.count))
        #expect(counts.count > 100 && histogramRows.count > 50)
    }

    /// The fold's path: the finest rows of several commits, merged, then the coarser grains
    /// derived once, equal every grain computed from all the events at once.
    @Test func finestRowsOfSeveralCommitsDeriveTheSameCoarserGrains() {
        var rng = SeededGenerator(seed: 41)
        var all = RollupDeltas()
        var merged = RollupDeltas()
        for commit in 0..<4 {
            var part = RollupDeltas()
            for i in 0..<300 {
                let type = EventType.allCases.randomElement(using: &rng)!
                let action = type == .response ? [SystemAction.open, SystemAction.dismiss, "reply", "like"].randomElement(using: &rng)! : nil
                let time = at(Int64.random(in: -1500...1500, using: &rng))
                let event = Event(eventId: .v7(at: time, using: &rng), type: type, deviceTime: time,
                                  category: ["chat", "promo"].randomElement(using: &rng)!, actionIdentifier: action,
                                  userTextLength: action == "reply" ? Int32.random(in: 0...300, using: &rng) : nil,
                                  hasMedia: Bool.random(using: &rng), categoryRegistered: [true, false, nil].randomElement(using: &rng)!,
                                  campaign: ["w", nil].randomElement(using: &rng)!, variant: ["A", "B", nil].randomElement(using: &rng)!,
                                  deliveredAt: type == .response ? time.adding(microseconds: -Int64.random(in: 0...90_000_000, using: &rng)) : nil)
                let context = DeviceContext(appVersion: ["1", "2"][(commit + i) % 2], platform: ["iOS", "watchOS"][i % 2])
                part.add(event, appId: Int64(1 + i % 2), context: context)
                all.add(event, appId: Int64(1 + i % 2), context: context)
            }
            part.finishFinest()
            #expect(part.holdsOnlyFinestRows)
            merged.merge(part)
        }
        merged.deriveCoarserGrains()
        all.finish()
        #expect(!merged.holdsOnlyFinestRows)
        #expect(merged.counts == all.counts)
        #expect(merged.actions == all.actions)
        #expect(merged.histograms == all.histograms)
        #expect(merged.usageHourly == all.usageHourly)
        #expect(merged.usageDaily == all.usageDaily)
        #expect(all.counts.keys.contains { $0.dimensions.grain == RollupDeltas.Grain.strata })
        #expect(all.histograms.keys.contains { $0.dimensions.grain == RollupDeltas.Grain.daily })
    }

    /// Grain 5 cuts at quarter hours, so every zone's local midnight is a bucket edge: Nepal's
    /// (+05:45) is 18:15 UTC, and the last microsecond before it falls in the 18:00 quarter, the
    /// midnight itself in the 18:15 one, both in the 18:00 hour of grain 0. Before 1970 the cut
    /// is a floor too.
    @Test func quarterHoursCutAtNepalsMidnight() {
        let midnight = Timestamp(iso8601: "2026-11-02T18:15:00Z")! // 2026-11-03 00:00 in Asia/Kathmandu
        let quarter = Self.hour / 4
        let context = DeviceContext(appVersion: "1", platform: "iOS")
        var deltas = RollupDeltas()
        for t in [midnight.adding(microseconds: -1), midnight, midnight.adding(microseconds: quarter - 1), Timestamp(microseconds: -1)] {
            deltas.add(Event(eventId: .v7(at: t), type: .delivered, deviceTime: t, category: "c"), appId: 1, context: context)
        }
        deltas.finish()
        func delivered(_ grain: Int16) -> [Int64: Int64] {
            deltas.counts.filter { $0.key.dimensions.grain == grain }.reduce(into: [:]) { $0[$1.key.dimensions.bucket, default: 0] += $1.value.delivered }
        }
        #expect(delivered(RollupDeltas.Grain.quarter) == [midnight.microseconds - quarter: 1, midnight.microseconds: 2, -quarter: 1])
        #expect(delivered(RollupDeltas.Grain.everyDimension) == [midnight.microseconds - quarter: 3, -Self.hour: 1])
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
