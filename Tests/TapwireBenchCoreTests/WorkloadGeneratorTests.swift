import Testing
import TapwireCore
@testable import TapwireBenchCore

/// The benchmarks' one generator: exact counts, determinism from the seed, and each shape's
/// distributions as docs/benchmarks.md describes them.
@Suite struct WorkloadGeneratorTests {
    static let start = Timestamp(iso8601: "2026-10-01T00:00:00Z")!

    /// Everything one spread yields, flattened with each event's context.
    struct Sample {
        var batches: [GeneratedBatch] = []
        var events: [(context: DeviceContext, event: Event)] { batches.flatMap { b in b.events.map { (b.context, $0) } } }
        var delivered: [(context: DeviceContext, event: Event)] { events.filter { $0.event.type == .delivered } }
    }

    static func sample(_ shape: WorkloadShape, events: Int, seed: UInt64 = 11) -> (WorkloadGenerator, Sample) {
        var generator = WorkloadGenerator(shape: shape, seed: seed, start: start, days: 30)
        var sample = Sample()
        generator.spread(events: events) { sample.batches.append($0) }
        return (generator, sample)
    }

    /// Computed once: the real shape's sample is what most tests read.
    static let real = sample(.real, events: 100_000)
    static let benchmark = sample(.benchmark, events: 60_000)

    static func share<T>(_ items: [T], _ isIn: (T) -> Bool) -> Double {
        Double(items.filter(isIn).count) / Double(max(1, items.count))
    }

    @Test func theSameSeedGivesTheSameEventsAndAnotherSeedOthers() {
        let first = Self.sample(.real, events: 5_000, seed: 3).1.batches
        let again = Self.sample(.real, events: 5_000, seed: 3).1.batches
        let other = Self.sample(.real, events: 5_000, seed: 4).1.batches
        #expect(first == again)
        #expect(first != other)
        #expect(WorkloadGenerator(shape: .real, seed: 3, start: Self.start, days: 30).campaigns
            == WorkloadGenerator(shape: .real, seed: 3, start: Self.start, days: 30).campaigns)
        var a = WorkloadGenerator(shape: .benchmark, seed: 9, endingAt: Self.start, ids: .random)
        var b = WorkloadGenerator(shape: .benchmark, seed: 9, endingAt: Self.start, ids: .random)
        #expect(a.batch(events: 300, from: Self.start.adding(seconds: -300), to: Self.start)
            == b.batch(events: 300, from: Self.start.adding(seconds: -300), to: Self.start))
    }

    @Test func aSpreadYieldsExactlyTheEventsAskedForInTheWindowAndInOrder() {
        for shape in [WorkloadShape.real, .benchmark] {
            for total in [1, 7, 2_881, 10_000] {
                let (generator, sample) = Self.sample(shape, events: total)
                let events = sample.events.map(\.event)
                #expect(events.count == total, "\(shape.name) \(total)")
                #expect(events.allSatisfy { $0.eventTime >= generator.start && $0.eventTime < generator.end })
                // Quarter hour by quarter hour: no event of a later quarter hour before one of an earlier.
                let quarters = events.map { $0.eventTime.microseconds / 900_000_000 }
                #expect(zip(quarters, quarters.dropFirst()).allSatisfy { $0 <= $1 })
                #expect(sample.batches.allSatisfy { $0.events.count <= 10 })
                #expect(events.filter { $0.type == .response }.allSatisfy { $0.deliveredAt! < $0.eventTime && $0.actionIdentifier != nil })
            }
        }
    }

    @Test func anIngestBatchIsOneDevicesEventsInItsSpanWithTheIdKindAsked() {
        let end = Timestamp(iso8601: "2026-12-01T10:00:00Z")!
        for kind in EventIDKind.allCases {
            var generator = WorkloadGenerator(shape: .real, seed: 5, endingAt: end, ids: kind)
            let batch = generator.batch(events: 500, from: end.adding(seconds: -300), to: end)
            #expect(batch.events.count == 500)
            #expect(batch.events.allSatisfy { $0.eventTime >= end.adding(seconds: -300) && $0.eventTime < end })
            #expect(Set(batch.events.map(\.eventId)).count == 500)
            let version = batch.events.map { ($0.eventId.high >> 12) & 0xF }
            #expect(version.allSatisfy { $0 == (kind == .v7 ? 7 : 4) })
            #expect(generator.shape.versionNames.contains(batch.context.appVersion))
            // A live app at `end`: its campaigns are the ones sending then.
            let live = Set(generator.campaigns.filter { $0.isLive(at: end.adding(seconds: -150)) }.compactMap(\.name))
            #expect(live.count > 100 && live.count < 260, "\(live.count) campaigns live")
            let byName = Dictionary(uniqueKeysWithValues: generator.campaigns.map { ($0.name!, $0) })
            #expect(batch.events.allSatisfy { event in event.campaign.map { byName[$0]!.isLive(at: event.eventTime) } ?? true })
        }
    }

    @Test func theRealShapeHasThirtySkewedCategories() {
        let delivered = Self.real.1.delivered.map(\.event)
        var counts: [String: Int] = [:]
        for event in delivered { counts[event.category, default: 0] += 1 }
        #expect(counts.count == 30)
        let shares = counts.values.map { Double($0) / Double(delivered.count) }.sorted(by: >)
        #expect(shares[0] > 0.12 && shares[0] < 0.40, "top category \(shares[0])")
        #expect(shares[0] > 6 * shares[15], "top \(shares[0]) against the median \(shares[15])")
        #expect(shares[29] < 0.02)
    }

    @Test func theRealShapeStartsEightyCampaignsADayLivingAboutTwoDays() {
        let (generator, sample) = Self.real
        let inWindow = generator.campaigns.filter { $0.start >= generator.start && $0.start < generator.end }
        #expect(inWindow.count == 2_400)
        #expect(generator.campaigns.count == 80 * 33)
        let lives = generator.campaigns.map { Double($0.end.microseconds - $0.start.microseconds) / 86_400_000_000 }
        #expect(lives.allSatisfy { $0 >= 1 && $0 <= 3 })
        let mean = lives.reduce(0, +) / Double(lives.count)
        #expect(abs(mean - 2) < 0.05, "mean lifetime \(mean) days")
        #expect(Set(generator.campaigns.compactMap(\.name)).count == generator.campaigns.count)
        #expect(generator.campaigns.allSatisfy { (1...2).contains($0.categories.count) })

        let events = sample.events.map(\.event)
        let seen = Set(events.compactMap(\.campaign))
        #expect(seen.count > 2_200, "\(seen.count) campaigns with events")
        let noCampaign = Self.share(sample.delivered) { $0.event.campaign == nil }
        #expect(abs(noCampaign - 0.15) < 0.02, "no campaign: \(noCampaign)")
        // Every event of a campaign lies in its life, in one of its categories.
        let byName = Dictionary(uniqueKeysWithValues: generator.campaigns.map { ($0.name!, $0) })
        for event in events {
            guard let name = event.campaign, let campaign = byName[name] else { continue }
            #expect(campaign.isLive(at: event.eventTime))
            #expect(campaign.categories.contains { generator.shape.categories[$0.index].identifier == event.category })
        }
    }

    @Test func theRealShapeHasFortyVersionsMostDevicesOnTheNewestFew() {
        let (generator, sample) = Self.real
        let versions = sample.batches.map(\.context.appVersion)
        #expect(Set(versions).count == 40)
        #expect(Set(versions) == Set(generator.shape.versionNames))
        // At the window's end, and averaged over the window, the newest three hold most devices.
        let atEnd = generator.versionWeights(at: generator.end.adding(seconds: -1))
        #expect(atEnd.suffix(3).reduce(0, +) / atEnd.reduce(0, +) > 0.7)
        var newestThree = 0
        for batch in sample.batches {
            let weights = generator.versionWeights(at: batch.events[0].eventTime)
            let released = weights.lastIndex { $0 > 0 }!
            if generator.shape.versionNames.firstIndex(of: batch.context.appVersion)! >= released - 2 { newestThree += 1 }
        }
        #expect(Double(newestThree) / Double(sample.batches.count) > 0.6)
        // A version released in the window has no device before its release.
        let newest = generator.shape.versionNames.last!
        let firstSeen = sample.batches.first { $0.context.appVersion == newest }!.events[0].eventTime
        #expect(firstSeen > generator.end.adding(seconds: -3 * 86_400))
    }

    @Test func theRealShapeIsMostlyIOSOnFourOSMajors() {
        let batches = Self.real.1.batches
        var platforms: [String: Int] = [:]
        for batch in batches { platforms[batch.context.platform, default: 0] += 1 }
        #expect(Set(platforms.keys) == ["iOS", "iPadOS", "watchOS", "macOS", "visionOS"])
        let ios = Double(platforms["iOS"]!) / Double(batches.count)
        #expect(abs(ios - 0.80) < 0.02, "iOS \(ios)")
        #expect(platforms["visionOS"]! < platforms["macOS"]! && platforms["macOS"]! < platforms["watchOS"]!)
        let iosMajors = batches.filter { $0.context.platform == "iOS" }.map { $0.context.osVersion!.split(separator: ".")[0] }
        #expect(Set(iosMajors) == ["16", "17", "18", "26"])
        #expect(iosMajors.filter { $0 == "26" }.count > 5 * iosMajors.filter { $0 == "16" }.count)
    }

    @Test func theRealShapesVariantsAndEventMix() {
        let events = Self.real.1.events.map(\.event)
        #expect(Set(events.map(\.variant)) == ["A", "B", nil])
        let withVariant = Self.share(events) { $0.variant != nil }
        #expect(withVariant > 0.2 && withVariant < 0.6, "with a variant: \(withVariant)")
        let sent = Self.share(events) { $0.type == .sent }
        let responses = Self.share(events) { $0.type == .response }
        #expect(abs(sent - 0.03) < 0.01, "sent \(sent)")
        #expect(responses > 0.1 && responses < 0.3, "responses \(responses)")
        #expect(Set(events.compactMap(\.actionIdentifier)).isSuperset(of: [SystemAction.open, SystemAction.dismiss, "reply", "accept"]))
    }

    /// Media goes with the campaign, the category and the platform, and so does engagement: the
    /// pooled rich vs text-only difference points the wrong way, the one within category ×
    /// campaign × version × platform does not.
    @Test func richVsTextOnlyIsConfoundedInTheRealShape() {
        let (generator, sample) = Self.real
        let marketing = Set(generator.shape.categories.filter(\.marketing).map(\.identifier))
        let delivered = sample.delivered
        func richShare(_ filter: ((context: DeviceContext, event: Event)) -> Bool) -> Double {
            Self.share(delivered.filter(filter)) { $0.event.hasMedia }
        }
        #expect(richShare { marketing.contains($0.event.category) } > 2 * richShare { !marketing.contains($0.event.category) })
        let requested = delivered.filter { $0.event.mediaRequested == true }
        let shownOnWatch = Self.share(requested.filter { $0.context.platform == "watchOS" }) { $0.event.hasMedia }
        let shownOnPhone = Self.share(requested.filter { $0.context.platform == "iOS" }) { $0.event.hasMedia }
        #expect(shownOnWatch < shownOnPhone - 0.1, "media shown: watchOS \(shownOnWatch), iOS \(shownOnPhone)")

        // Engaged (opens and custom actions) over delivered, per stratum and side.
        struct Cell { var delivered = 0.0, engaged = 0.0 }
        var cells: [String: [Bool: Cell]] = [:]
        for (context, event) in sample.events {
            let key = [event.category, event.campaign ?? "", context.appVersion, context.platform].joined(separator: "|")
            if event.type == .delivered { cells[key, default: [:]][event.hasMedia, default: Cell()].delivered += 1 }
            if event.type == .response, event.actionIdentifier != SystemAction.dismiss {
                cells[key, default: [:]][event.hasMedia, default: Cell()].engaged += 1
            }
        }
        let rich = cells.values.compactMap { $0[true] }.reduce(Cell()) { Cell(delivered: $0.delivered + $1.delivered, engaged: $0.engaged + $1.engaged) }
        let text = cells.values.compactMap { $0[false] }.reduce(Cell()) { Cell(delivered: $0.delivered + $1.delivered, engaged: $0.engaged + $1.engaged) }
        let pooled = rich.engaged / rich.delivered - text.engaged / text.delivered
        // Mantel–Haenszel risk difference: Σ (a·n0 − c·n1)/N over Σ n1·n0/N.
        var numerator = 0.0, denominator = 0.0
        for sides in cells.values {
            guard let r = sides[true], let t = sides[false], r.delivered > 0, t.delivered > 0 else { continue }
            let n = r.delivered + t.delivered
            numerator += (r.engaged * t.delivered - t.engaged * r.delivered) / n
            denominator += r.delivered * t.delivered / n
        }
        let adjusted = numerator / denominator
        #expect(pooled < 0, "pooled \(pooled)")
        #expect(adjusted > 0, "adjusted \(adjusted)")
    }

    @Test func theBenchmarkShapeIsTodays() {
        let (generator, sample) = Self.benchmark
        let events = sample.events.map(\.event)
        let delivered = sample.delivered.map(\.event)
        var categories: [String: Int] = [:]
        for event in delivered { categories[event.category, default: 0] += 1 }
        #expect(categories.count == 8)
        #expect(categories.values.allSatisfy { abs(Double($0) / Double(delivered.count) - 0.125) < 0.015 })
        #expect(Set(sample.batches.map(\.context.appVersion)) == ["3.2.1", "3.2.0", "3.1.0"])
        let ios = Self.share(sample.batches) { $0.context.platform == "iOS" }
        #expect(abs(ios - 0.9) < 0.03)
        #expect(Set(sample.batches.map(\.context.platform)) == ["iOS", "watchOS"])
        #expect(Set(events.map(\.campaign)) == ["winter-sale", "spring", "onboarding", "reengage", nil])
        #expect(abs(Self.share(delivered) { $0.campaign == nil } - 0.2) < 0.015)
        #expect(abs(Self.share(events) { $0.type == .delivered } - 0.80) < 0.015)
        #expect(abs(Self.share(events) { $0.type == .response } - 0.17) < 0.015)
        #expect(abs(Self.share(events) { $0.type == .sent } - 0.03) < 0.01)
        #expect(abs(Self.share(delivered) { $0.hasMedia } - 0.5) < 0.015)
        #expect(abs(Self.share(delivered) { $0.mediaRequested == true } - 0.55) < 0.015)
        #expect(generator.campaigns.count == 4)
        #expect(generator.shape.manifests.isEmpty)
    }

    @Test func theRealShapeRegistersEveryCategoryInEveryVersion() {
        let manifests = WorkloadShape.real.manifests
        #expect(manifests.count == 40)
        #expect(manifests.allSatisfy { $0.categories.count == 30 })
        #expect(Set(manifests.map(\.appVersion)).count == 40)
    }

    /// The holdouts shape: every device's first notification of a campaign a second after its
    /// treated assignment, held-out devices (their own ids, named by the event) in the share the
    /// campaign states, and nothing else changed: the other shapes post no assignment.
    @Test func theHoldoutsShapeAssignsEachDeviceOncePerCampaignAndHoldsOutATenth() throws {
        let sample = Self.sample(.holdouts, events: 40_000).1
        let assignments = sample.events.filter { $0.event.type == .assignment }
        let share = Double(assignments.count) / Double(sample.events.count)
        #expect(share > 0.2 && share < 0.45, "assignments \(share) of the events")
        let heldOut = assignments.filter { $0.event.assignment?.arm == .heldOut }
        let heldOutShare = Double(heldOut.count) / Double(assignments.count)
        #expect(abs(heldOutShare - 0.1) < 0.01, "held out \(heldOutShare)")
        #expect(assignments.allSatisfy { $0.event.assignment?.holdoutShare == 0.1 && $0.event.campaign != nil })
        #expect(heldOut.allSatisfy { $0.event.deviceId != nil && $0.event.deviceId != $0.context.deviceId })
        #expect(Set(heldOut.compactMap(\.event.deviceId)).count == heldOut.count, "each held-out device assigned once")
        for batch in sample.batches {
            var firstDelivery: [String: Timestamp] = [:]
            for event in batch.events where event.type == .delivered {
                if let campaign = event.campaign, firstDelivery[campaign] == nil { firstDelivery[campaign] = event.eventTime }
            }
            let own = batch.events.filter { $0.type == .assignment && $0.deviceId == nil }
            #expect(own.count == Set(own.compactMap(\.campaign)).count, "one treated assignment per device and campaign")
            for assignment in own {
                let campaign = try #require(assignment.campaign)
                // The last batch of the window may be cut after the assignment, before its delivery.
                if let delivered = firstDelivery[campaign] { #expect(assignment.eventTime == delivered.adding(seconds: -1)) }
            }
        }
        #expect(!Self.real.1.events.contains { $0.event.type == .assignment })
        #expect(try WorkloadShape.Name.list("outcomes,holdouts").get() == [.outcomes, .holdouts])
    }

    @Test func shapeListsAreReadOrRefusedWithTheReason() throws {
        #expect(try WorkloadShape.Name.list("benchmark,real").get() == [.benchmark, .real])
        #expect(try WorkloadShape.Name.list("real").get() == [.real])
        #expect(throws: WorkloadShape.ShapeListError.unknown("fake")) { try WorkloadShape.Name.list("benchmark,fake").get() }
        #expect(throws: WorkloadShape.ShapeListError.repeated("real")) { try WorkloadShape.Name.list("real,real").get() }
        #expect(throws: WorkloadShape.ShapeListError.unknown("")) { try WorkloadShape.Name.list("").get() }
    }
}
