import Foundation
import TapwireCore
import TapwireStatistics

/// The one generator of benchmark workloads: the events of a `WorkloadShape` over a window of
/// days, deterministic for a seed. `tapwire-bench report` writes what `spread` yields straight into
/// `events`; `tapwire-bench ingest` posts what `batch` yields through the collector.
///
/// Each notification is drawn at an instant: a device (platform, OS version, the app version
/// devices ran then), a campaign live then that targets the device's platform (or none), one of
/// the campaign's categories, a variant, whether media was requested and shown. It yields its
/// `delivered` event, perhaps a `sent` one, and, with the engagement probability of all of that,
/// a `response` at the same instant to an equivalent notification delivered a while before
/// (`deliveredAt`): in a steady state that is the same stream of events, and every event stays
/// at its instant, so the events come out in time order and in exact numbers.
public struct WorkloadGenerator: Sendable {
    public let shape: WorkloadShape
    public let start: Timestamp
    public let end: Timestamp
    /// Every campaign of the plan, in order of start (those live at the window's start too).
    public let campaigns: [PlannedCampaign]
    public let ids: EventIDKind

    private var random: SeededGenerator
    private let categoryWeights: Cumulative
    private let platformWeights: Cumulative
    private let osWeights: [Cumulative]
    private let noCampaign: PlannedCampaign
    private var table: SlotTable?

    static let slotMicroseconds: Int64 = 15 * 60 * 1_000_000
    static let dayMicroseconds: Int64 = 86_400_000_000

    /// The window [start, start + days); `seed` fixes the campaign plan and every draw.
    public init(shape: WorkloadShape, seed: UInt64, start: Timestamp, days: Int, ids: EventIDKind = .v7) {
        self.shape = shape
        self.start = start
        self.end = start.adding(microseconds: Int64(days) * Self.dayMicroseconds)
        self.ids = ids
        random = SeededGenerator(seed: seed)
        categoryWeights = Cumulative(shape.categories.map(\.weight))
        platformWeights = Cumulative(shape.platforms.map(\.weight))
        osWeights = shape.platforms.map { Cumulative($0.osVersions.map(\.weight)) }
        var planner = SeededGenerator(seed: seed ^ 0x5EED_C4A1_9A16_0000)
        campaigns = Self.plan(shape, start: start, end: end, days: days, random: &planner)
        let noneVariants = [PlannedCampaign.Variant(name: nil, weight: 1, mediaRequested: shape.noCampaignMediaRequested, engagement: 1)]
        noCampaign = PlannedCampaign(name: nil, start: start, end: end, decayDays: nil, categories: [],
                                     platformWeights: shape.platforms.map { _ in 1 }, size: 1, engagement: 1,
                                     variants: noneVariants, mediaKinds: shape.mediaKinds.first?.kind ?? .image)
    }

    /// The window of `days` that ends at `end`: what a live app looks like at `end` (the ingest
    /// benchmark posts the last few minutes of it).
    public init(shape: WorkloadShape, seed: UInt64, endingAt end: Timestamp, days: Int = 30, ids: EventIDKind) {
        self.init(shape: shape, seed: seed, start: end.adding(microseconds: -Int64(days) * Self.dayMicroseconds), days: days, ids: ids)
    }

    // MARK: - Events

    /// `count` events of one device, at instants in [from, to), in time order. The last
    /// notification's events past `count` are left out (its response first, then its delivery).
    public mutating func batch(events count: Int, from: Timestamp, to: Timestamp) -> GeneratedBatch {
        draw(atLeast: count, atMost: count, from: from, to: to)
    }

    /// One device's whole notifications at instants in [from, to) until there are `atLeast`
    /// events, cut at `atMost`, in time order.
    private mutating func draw(atLeast target: Int, atMost limit: Int, from: Timestamp, to: Timestamp) -> GeneratedBatch {
        let platform = platformWeights.pick(&random)
        let os = shape.platforms[platform].osVersions[osWeights[platform].pick(&random)].version
        let version = slotTable(at: from).versions.pick(&random)
        var context = DeviceContext(appVersion: shape.versionNames[version], build: String(1_000 + 7 * version),
                                    platform: shape.platforms[platform].name, osVersion: os, sdk: "tapwire-swift/1.0")
        if shape.installIds { context.deviceId = installId() }
        var events: [Event] = []
        events.reserveCapacity(target + 2)
        let span = Double(max(1, to.microseconds - from.microseconds))
        while events.count < target {
            let time = from.adding(microseconds: Int64(random.unit() * span))
            notification(at: time, platform: platform, into: &events)
        }
        if let assignments = shape.assignments { assign(&events, holdoutShare: assignments.holdoutShare) }
        if events.count > limit { events.removeLast(events.count - limit) }
        events.sort { $0.eventTime < $1.eventTime }
        return GeneratedBatch(context: context, events: events)
    }

    /// Exactly `total` events over the whole window, in time order by quarter hour (each quarter
    /// hour gets its share of the daily cycle), in batches of one device's notifications of about
    /// `eventsPerBatch` events. Notifications are whole, so a quarter hour may take an event or
    /// two more than its share, which the next gives back; only the very last notification of the
    /// window may be cut to make the total exact.
    public mutating func spread(events total: Int, eventsPerBatch: Int = 8, _ body: (GeneratedBatch) throws -> Void) rethrows {
        let slots = Int((end.microseconds - start.microseconds) / Self.slotMicroseconds)
        let weights = (0..<slots).map { diurnal(at: start.adding(microseconds: Int64($0) * Self.slotMicroseconds + Self.slotMicroseconds / 2)) }
        let sum = weights.reduce(0, +)
        var cumulative = 0.0
        var placed = 0
        for slot in 0..<slots {
            cumulative += weights[slot]
            let upTo = slot == slots - 1 ? total : Int((Double(total) * cumulative / sum).rounded())
            let from = start.adding(microseconds: Int64(slot) * Self.slotMicroseconds)
            let to = from.adding(microseconds: Self.slotMicroseconds)
            while placed < upTo {
                let remaining = upTo - placed
                let batch = draw(atLeast: min(eventsPerBatch, remaining), atMost: slot == slots - 1 ? remaining : Int.max, from: from, to: to)
                placed += batch.events.count
                try body(batch)
            }
        }
    }

    /// The relative volume of sends at `time` (1 with no daily cycle).
    func diurnal(at time: Timestamp) -> Double {
        Self.diurnal(shape, hourOfDay: Double(time.microseconds % Self.dayMicroseconds) / 3_600_000_000)
    }

    static func diurnal(_ shape: WorkloadShape, hourOfDay: Double) -> Double {
        let phase: Double = 2 * Double.pi * (hourOfDay - shape.diurnalPeakHourUTC) / 24
        return 1 + shape.diurnalAmplitude * cos(phase)
    }

    /// One notification at `time` to a device of `platform`: its events appended to `events`.
    private mutating func notification(at instant: Timestamp, platform: Int, into events: inout [Event]) {
        var time = instant
        let campaign = pickCampaign(at: &time, platform: platform)
        let category = shape.categories[campaign.categories.isEmpty ? categoryWeights.pick(&random) : pickCategory(campaign)]
        let variant = campaign.variants.count == 1 ? campaign.variants[0] : campaign.variants[pickVariant(campaign)]
        let device = shape.platforms[platform]
        let requested = random.unit() < variant.mediaRequested
        let shown = requested && random.unit() >= device.mediaFailure
        let kinds: MediaKinds = shown ? campaign.mediaKinds : []
        let multiplier = campaign.engagement * variant.engagement * device.engagement * (shown ? shape.richUplift : 1)
        var open = category.openRate * multiplier
        var action = category.actions.isEmpty ? 0 : category.actionRate * multiplier
        var dismiss = category.dismissRate * device.engagement
        let engaged = open + action + dismiss
        if engaged > 0.95 { open *= 0.95 / engaged; action *= 0.95 / engaged; dismiss *= 0.95 / engaged }
        let registered = !(random.unit() < shape.unregisteredShare)

        if random.unit() < shape.sentShare {
            events.append(Event(eventId: ids.make(&random, at: time), type: .sent, deviceTime: time, notificationId: notificationId(),
                                category: category.identifier, campaign: campaign.name, variant: variant.name))
        }
        events.append(Event(eventId: ids.make(&random, at: time), type: .delivered, deviceTime: time, notificationId: notificationId(),
                            category: category.identifier, hasMedia: shown, mediaTypes: kinds, mediaRequested: requested,
                            categoryRegistered: registered, campaign: campaign.name, variant: variant.name))
        let u = random.unit()
        guard u < open + action + dismiss else {
            convert(after: time, tapped: false, into: &events)
            return
        }
        var actionIdentifier = SystemAction.open
        var replyLength: Int32?
        if u >= open + action {
            actionIdentifier = SystemAction.dismiss
        } else if u >= open {
            let chosen = category.actions[pickAction(category)]
            actionIdentifier = chosen.identifier
            if chosen.textInput { replyLength = replyCharacters() }
        }
        // Delivered between 1 s and about 6 h before (log-uniform).
        let delay = exp(random.unit() * 10)
        events.append(Event(eventId: ids.make(&random, at: time), type: .response, deviceTime: time, notificationId: notificationId(),
                            category: category.identifier, actionIdentifier: actionIdentifier, userTextLength: replyLength,
                            hasMedia: shown, mediaTypes: kinds, mediaRequested: requested, categoryRegistered: registered,
                            campaign: campaign.name, variant: variant.name, deliveredAt: time.adding(seconds: -delay)))
        convert(after: time, tapped: actionIdentifier != SystemAction.dismiss, into: &events)
    }

    /// Perhaps a conversion a few minutes after a tap or a delivery (the shape's rates).
    private mutating func convert(after time: Timestamp, tapped: Bool, into events: inout [Event]) {
        guard let conversions = shape.conversions, random.unit() < (tapped ? conversions.afterTap : conversions.afterDelivery) else { return }
        var u = random.unit() * conversions.names.reduce(0) { $0 + $1.weight }
        var chosen = conversions.names[conversions.names.count - 1]
        for name in conversions.names {
            u -= name.weight
            if u < 0 { chosen = name; break }
        }
        let at = time.adding(seconds: 1 + random.unit() * 600)
        let value = chosen.valued ? (conversions.valueMedian * exp(conversions.valueSigma * random.normal()) * 100).rounded() / 100 : nil
        events.append(Event(eventId: ids.make(&random, at: at), type: .conversion, deviceTime: at, category: "",
                            conversion: Event.Conversion(name: chosen.name, value: value, currency: value == nil ? nil : conversions.currency)))
    }

    /// The sender's assignments of one device's notifications (`WorkloadShape.Assignments`): its
    /// own, treated, a second before its first notification of each campaign, and perhaps another
    /// device's, held out.
    private mutating func assign(_ events: inout [Event], holdoutShare: Double) {
        var assigned = Set<String>()
        for event in events.sorted(by: { $0.eventTime < $1.eventTime }) where event.type == .delivered {
            guard let campaign = event.campaign, assigned.insert(campaign).inserted else { continue }
            let at = event.eventTime.adding(seconds: -1)
            events.append(Event(eventId: ids.make(&random, at: at), type: .assignment, deviceTime: at, category: "", campaign: campaign,
                                assignment: Event.Assignment(arm: .treated, holdoutShare: holdoutShare)))
            if random.unit() < holdoutShare / (1 - holdoutShare) {
                events.append(Event(eventId: ids.make(&random, at: at), type: .assignment, deviceTime: at, category: "", campaign: campaign,
                                    assignment: Event.Assignment(arm: .heldOut, holdoutShare: holdoutShare), deviceId: installId()))
            }
        }
    }

    /// A random install id, as the SDK makes one (a UUID's text).
    private mutating func installId() -> String {
        let a = random.next(), b = random.next()
        return String(format: "%08X-%04X-4%03X-%04X-%012llX", UInt32(truncatingIfNeeded: a >> 32), UInt16(truncatingIfNeeded: a >> 16),
                      UInt16(truncatingIfNeeded: a) & 0x0FFF, UInt16(truncatingIfNeeded: b >> 48) & 0x3FFF | 0x8000, b & 0xFFFF_FFFF_FFFF)
    }

    /// A campaign live at `time` that sends to `platform`, weighted by how much it sends then,
    /// or none. A draw from the quarter hour's table that has not started or has ended at the
    /// exact instant is drawn again; after a few tries the instant moves into its life.
    private mutating func pickCampaign(at time: inout Timestamp, platform: Int) -> PlannedCampaign {
        if random.unit() < shape.noCampaignShare { return noCampaign }
        let slot = slotTable(at: time)
        guard let weights = slot.campaignWeights[platform] else { return noCampaign }
        var campaign = campaigns[slot.live[weights.pick(&random)]]
        for _ in 0..<3 where !campaign.isLive(at: time) {
            campaign = campaigns[slot.live[weights.pick(&random)]]
        }
        if time < campaign.start { time = campaign.start }
        if time >= campaign.end { time = campaign.end.adding(microseconds: -1) }
        return campaign
    }

    private mutating func pickCategory(_ campaign: PlannedCampaign) -> Int {
        guard campaign.categories.count > 1 else { return campaign.categories[0].index }
        let total = campaign.categories.reduce(0) { $0 + $1.weight }
        var u = random.unit() * total
        for entry in campaign.categories {
            u -= entry.weight
            if u < 0 { return entry.index }
        }
        return campaign.categories[campaign.categories.count - 1].index
    }

    private mutating func pickVariant(_ campaign: PlannedCampaign) -> Int {
        var u = random.unit() * campaign.variants.reduce(0) { $0 + $1.weight }
        for (i, variant) in campaign.variants.enumerated() {
            u -= variant.weight
            if u < 0 { return i }
        }
        return campaign.variants.count - 1
    }

    private mutating func pickAction(_ category: WorkloadShape.Category) -> Int {
        guard category.actions.count > 1 else { return 0 }
        var u = random.unit() * category.actions.reduce(0) { $0 + $1.weight }
        for (i, action) in category.actions.enumerated() {
            u -= action.weight
            if u < 0 { return i }
        }
        return category.actions.count - 1
    }

    private mutating func replyCharacters() -> Int32 {
        switch shape.replyLength {
        case .uniform(let range):
            return Int32(range.lowerBound + Int(random.next() % UInt64(range.count)))
        case .logNormal(let median, let sigma, let max):
            let length = median * exp(sigma * random.normal())
            return Int32(Swift.min(Double(max), Swift.max(1, length.rounded())))
        }
    }

    /// An APNs-style notification id (a UUID string), from the seeded stream.
    private mutating func notificationId() -> String {
        let id = EventID(high: (random.next() & ~0xF000) | 0x4000, low: (random.next() & ~(0x3 << 62)) | (0x2 << 62))
        return id.description.uppercased()
    }

    // MARK: - Who is live when

    /// What the draws of one quarter hour share: the campaigns that send in it, weighted per
    /// platform at its middle, and the app versions' shares then.
    struct SlotTable {
        var slot: Int64
        var live: [Int]
        /// Per platform: cumulative weights over `live` (nil: no campaign sends to it).
        var campaignWeights: [Cumulative?]
        var versions: Cumulative
    }

    private mutating func slotTable(at time: Timestamp) -> SlotTable {
        let slot = floorDivide(time.microseconds, Self.slotMicroseconds)
        if let table, table.slot == slot { return table }
        let slotStart = Timestamp(microseconds: slot * Self.slotMicroseconds)
        let slotEnd = slotStart.adding(microseconds: Self.slotMicroseconds)
        let middle = slotStart.adding(microseconds: Self.slotMicroseconds / 2)
        var live: [Int] = []
        for (i, campaign) in campaigns.enumerated() where campaign.start < slotEnd && campaign.end > slotStart {
            live.append(i)
        }
        let weights: [Cumulative?] = shape.platforms.indices.map { platform in
            let w = live.map { campaigns[$0].intensity(at: middle) * campaigns[$0].platformWeights[platform] }
            return w.contains { $0 > 0 } ? Cumulative(w) : nil
        }
        let built = SlotTable(slot: slot, live: live, campaignWeights: weights, versions: Cumulative(versionWeights(at: middle)))
        table = built
        return built
    }

    /// The share of devices on each app version at `time` (unnormalised).
    public func versionWeights(at time: Timestamp) -> [Double] {
        switch shape.versions {
        case .fixed(let names):
            return names.map { _ in 1 }
        case .releases(let count, let everyDays, let newestAgeDays, let adoptionDays, let abandonDays, let floor):
            return (0..<count).map { v in
                let releasedDaysBeforeEnd = newestAgeDays + Double(count - 1 - v) * everyDays
                let age = Double(time.microseconds - end.microseconds) / Double(Self.dayMicroseconds) + releasedDaysBeforeEnd
                guard age >= 0 else { return 0 }
                return (1 - exp(-age / adoptionDays)) * exp(-age / abandonDays) + floor
            }
        }
    }

    // MARK: - The campaign plan

    static func plan(_ shape: WorkloadShape, start: Timestamp, end: Timestamp, days: Int, random: inout SeededGenerator) -> [PlannedCampaign] {
        let settings = shape.campaigns
        let everyPlatform = shape.platforms.map { _ in 1.0 }
        var plan: [PlannedCampaign] = settings.standing.map { name in
            let variants = settings.standingVariants.map {
                PlannedCampaign.Variant(name: $0.name, weight: $0.weight, mediaRequested: $0.mediaRequested, engagement: 1)
            }
            // Standing campaigns live before and after the window, and send evenly.
            return PlannedCampaign(name: name, start: start.adding(microseconds: -365 * dayMicroseconds),
                                   end: end.adding(microseconds: 365 * dayMicroseconds), decayDays: nil, categories: [],
                                   platformWeights: everyPlatform, size: 1, engagement: 1, variants: variants,
                                   mediaKinds: shape.mediaKinds.first?.kind ?? .image)
        }
        guard settings.perDay > 0 else { return plan }
        let categories = Cumulative(shape.categories.map(\.weight))
        let mixes = Cumulative(settings.platformMixes.map(\.share))
        let kinds = Cumulative(shape.mediaKinds.map(\.weight))
        let hours = Cumulative((0..<24).map { (h: Int) -> Double in diurnal(shape, hourOfDay: Double(h) + 0.5) })
        // Campaigns started up to the longest lifetime before the window still send in it.
        let firstDay = -Int(settings.lifetimeDays.upperBound.rounded(.up))
        var serial = 0
        for day in firstDay..<days {
            var starts: [PlannedCampaign] = []
            for _ in 0..<settings.perDay {
                serial += 1
                let hour = Double(hours.pick(&random)) + random.unit()
                let begins = start.adding(microseconds: Int64(day) * dayMicroseconds + Int64(hour * 3_600_000_000))
                let lifetime = settings.lifetimeDays.lowerBound + random.unit() * (settings.lifetimeDays.upperBound - settings.lifetimeDays.lowerBound)
                let lifeMicroseconds = lifetime * Double(dayMicroseconds)
                let first = categories.pick(&random)
                var targeted = [(index: first, weight: 1.0)]
                if random.unit() < settings.twoCategoryShare {
                    let second = categories.pick(&random)
                    if second != first { targeted.append((second, 0.5 + random.unit())) }
                }
                let marketing = shape.categories[first].marketing
                let mediaTest = random.unit() < (marketing ? settings.mediaTestShareMarketing : settings.mediaTestShareOther)
                let rich = !mediaTest && random.unit() < (marketing ? settings.richShareMarketing : settings.richShareOther)
                var variants: [PlannedCampaign.Variant]
                if mediaTest {
                    variants = [.init(name: "A", weight: 1, mediaRequested: 1, engagement: 1), .init(name: "B", weight: 1, mediaRequested: 0, engagement: 1)]
                } else if random.unit() < settings.variantTestShare {
                    let requested = rich ? 1.0 : 0
                    variants = [.init(name: "A", weight: 1, mediaRequested: requested, engagement: exp(0.15 * random.normal())),
                                .init(name: "B", weight: 1, mediaRequested: requested, engagement: exp(0.15 * random.normal()))]
                } else {
                    variants = [.init(name: nil, weight: 1, mediaRequested: rich ? 1 : 0, engagement: 1)]
                }
                let engagement = exp(settings.engagementSpread * random.normal()) * (rich ? settings.richCampaignEngagement : 1)
                starts.append(PlannedCampaign(
                    name: shape.categories[first].identifier + "-" + String(serial),
                    start: begins, end: begins.adding(microseconds: Int64(lifeMicroseconds)), decayDays: lifetime / 3,
                    categories: targeted, platformWeights: settings.platformMixes[mixes.pick(&random)].weights,
                    size: exp(settings.sizeSpread * random.normal()), engagement: engagement, variants: variants,
                    mediaKinds: shape.mediaKinds[kinds.pick(&random)].kind))
            }
            plan += starts.sorted { $0.start < $1.start }
        }
        return plan
    }
}

extension SeededGenerator {
    /// Uniform in [0, 1), 53 bits.
    mutating func unit() -> Double { Double(next() >> 11) * 0x1p-53 }

    /// Standard normal (Box–Muller).
    mutating func normal() -> Double {
        let u = 1 - unit()
        return (-2 * log(u)).squareRoot() * cos(2 * Double.pi * unit())
    }
}

/// Floor division, for the quarter hour of a time before 1970 too.
private func floorDivide(_ a: Int64, _ b: Int64) -> Int64 { a >= 0 ? a / b : -((-a + b - 1) / b) }
