import TapwireCore

/// What an app's notification telemetry looks like, as the benchmarks generate it: its
/// categories, platforms, app versions, campaigns and engagement. One set of parameters per shape;
/// `WorkloadGenerator` is the only code that turns them into events. docs/benchmarks.md says why
/// each number is what it is.
public struct WorkloadShape: Sendable {
    /// The shapes `tapwire-bench report` and `ingest` take (`--shape`).
    public enum Name: String, CaseIterable, Sendable {
        /// The shape every figure before issue 33 was measured on: 8 categories, 4 campaigns,
        /// 3 app versions, 2 platforms, all uniform.
        case benchmark
        /// A real app: 30 skewed categories, 80 campaigns a day, 40 app versions, 5 platforms.
        case real
        /// The real app with conversions: about one event in ten (issue 35's cost figures).
        case outcomes
        /// The real app with conversions whose every campaign has a randomised holdout: the
        /// sender's assignments mixed in (issue 36's cost figures).
        case holdouts
        /// The real app whose devices post no install id: a bench-only experiment that splits the
        /// real shape's cost of install ids (events_by_device, attribution's queue and fold) from
        /// its cost of cardinality (docs/benchmarks.md, "The real shape's database cost").
        case anonymous

        /// `benchmark,real` into names; nil (with the reason) for an unknown or repeated name.
        public static func list(_ text: String) -> Result<[Name], ShapeListError> {
            var names: [Name] = []
            for part in text.split(separator: ",", omittingEmptySubsequences: false).map(String.init) {
                guard let name = Name(rawValue: part) else { return .failure(.unknown(part)) }
                guard !names.contains(name) else { return .failure(.repeated(part)) }
                names.append(name)
            }
            return .success(names)
        }
    }

    public enum ShapeListError: Error, Equatable, CustomStringConvertible {
        case unknown(String)
        case repeated(String)

        public var description: String {
            switch self {
            case .unknown(let name):
                return "unknown shape '\(name)': --shape takes benchmark, real, outcomes, holdouts, anonymous, or several separated by commas"
            case .repeated(let name): return "shape '\(name)' is named twice"
            }
        }
    }

    /// A custom action button of a category.
    public struct Action: Sendable, Equatable {
        public var identifier: String
        /// Its share of the category's custom-action responses.
        public var weight: Double
        /// A text-input action: its responses carry a reply length.
        public var textInput: Bool

        public init(_ identifier: String, weight: Double = 1, textInput: Bool = false) {
            self.identifier = identifier
            self.weight = weight
            self.textInput = textInput
        }
    }

    public struct Category: Sendable, Equatable {
        public var identifier: String
        /// Its share of the notifications sent without a campaign, and of the campaigns that target it.
        public var weight: Double
        /// Marketing categories (offers, digests, news) are sent rich more often and engage less.
        public var marketing: Bool
        /// Per delivered notification, before the campaign's, platform's and media's multipliers.
        public var openRate: Double
        public var actionRate: Double
        public var dismissRate: Double
        public var actions: [Action]
        /// Registered with `customDismissAction`, so dismissals are reported (in the manifests).
        public var customDismiss: Bool
    }

    public struct Platform: Sendable {
        public var name: String
        /// Its share of devices.
        public var weight: Double
        /// `osVersion` of the batch context, with the share of this platform's devices on each.
        public var osVersions: [(version: String, weight: Double)]
        /// The share of media downloads that fail, so the notification is shown text-only.
        public var mediaFailure: Double
        /// Multiplies every engagement rate on this platform (a watch is glanced at, not tapped).
        public var engagement: Double
    }

    /// Which app versions devices run, at a given time.
    public enum Versions: Sendable, Equatable {
        /// These versions, in equal shares, all the time.
        case fixed([String])
        /// `count` versions released every `everyDays`, the newest `newestAgeDays` before the
        /// window's end. A version `a` days old has weight (1 − e^(−a/adoptionDays)) ·
        /// e^(−a/abandonDays) + `floor`: adopted over a few days, left over weeks, and a long tail
        /// of devices that never update.
        case releases(count: Int, everyDays: Double, newestAgeDays: Double, adoptionDays: Double, abandonDays: Double, floor: Double)
    }

    /// Who a campaign is sent to: a weight per platform (in `platforms` order) on top of the
    /// platform's share of devices.
    public struct PlatformMix: Sendable, Equatable {
        public var name: String
        /// Its share of campaigns.
        public var share: Double
        public var weights: [Double]
    }

    /// Campaigns: a few standing ones that live through the whole window, and/or new ones started
    /// every day, each living a day or two.
    public struct Campaigns: Sendable, Equatable {
        /// Live the whole window, equal sizes, every category, every platform.
        public var standing: [String]
        /// The standing campaigns' variants: name (nil: none), share, and the share of its
        /// notifications that request media.
        public var standingVariants: [StandingVariant]
        /// New campaigns started per day (0: none).
        public var perDay: Int
        /// A campaign lives a uniform draw from this range of days; it sends most at its start
        /// (deliveries decay with a time constant of a third of its life).
        public var lifetimeDays: ClosedRange<Double>
        /// The share of campaigns that target two categories instead of one.
        public var twoCategoryShare: Double
        /// The share of campaigns sent rich (media requested on every notification), for marketing
        /// and for other categories.
        public var richShareMarketing: Double
        public var richShareOther: Double
        /// The share of campaigns that test media itself: variant A rich, variant B text-only.
        public var mediaTestShareMarketing: Double
        public var mediaTestShareOther: Double
        /// The share of the other campaigns that test something else (copy, timing): variants A
        /// and B with their own engagement.
        public var variantTestShare: Double
        /// Spread (σ of the log) of campaign sizes and of campaign engagement multipliers.
        public var sizeSpread: Double
        public var engagementSpread: Double
        /// Rich campaigns are broad sends, whose audience engages less: their multiplier is scaled
        /// by this. It is what makes the pooled rich vs text-only difference confounded.
        public var richCampaignEngagement: Double
        public var platformMixes: [PlatformMix]

        public struct StandingVariant: Sendable, Equatable {
            public var name: String?
            public var weight: Double
            public var mediaRequested: Double
        }
    }

    public var name: Name
    public var categories: [Category]
    public var platforms: [Platform]
    public var versions: Versions
    public var campaigns: Campaigns
    /// The share of notifications sent without a campaign (transactional, person to person).
    public var noCampaignShare: Double
    /// The share of those that request media (a photo in a message).
    public var noCampaignMediaRequested: Double
    /// Media kinds of a rich notification, with their shares (per campaign: a campaign sends one kind).
    public var mediaKinds: [(kind: MediaKinds, weight: Double)]
    /// The true effect of media shown: open and action rates are multiplied by this.
    public var richUplift: Double
    /// Per notification, the chance that the app's backend also posts a `sent` event.
    public var sentShare: Double
    /// Per event, the chance the device says the category was not registered.
    public var unregisteredShare: Double
    /// Relative amplitude of the daily cycle of sends (0: flat), peaking at `diurnalPeakHourUTC`.
    public var diurnalAmplitude: Double
    public var diurnalPeakHourUTC: Double
    public var replyLength: ReplyLength
    /// Every version's manifest is stored before any event (a real app's SDK posts it); the
    /// benchmark shape's app never posted one.
    public var storesManifests: Bool
    /// Each device posts an install id in its batch context, as the SDK does (docs/outcomes.md).
    public var installIds: Bool = false
    /// Conversions the devices post, or none.
    public var conversions: Conversions?
    /// The sender's assignments, or none (docs/holdouts.md).
    public var assignments: Assignments?

    /// Every campaign holds out `holdoutShare` of its devices: each device's first notification
    /// of a campaign comes a second after its `treated` assignment, and for every treated device
    /// another is held out with odds share : (1 − share), an assignment of a device of its own
    /// (named by the event's deviceId, as the sender's batches name it) and nothing else.
    public struct Assignments: Sendable, Equatable {
        public var holdoutShare: Double
    }

    /// How devices convert: per notification, the chance of a conversion after a tap (an open or
    /// an action) and after a delivery without one, a few minutes later; values are log-normal.
    public struct Conversions: Sendable, Equatable {
        public var afterTap: Double
        public var afterDelivery: Double
        /// (name, share, carries a value)
        public var names: [Name]
        public var valueMedian: Double
        public var valueSigma: Double
        public var currency: String

        public struct Name: Sendable, Equatable {
            public var name: String
            public var weight: Double
            public var valued: Bool
        }
    }

    public enum ReplyLength: Sendable, Equatable {
        case uniform(ClosedRange<Int>)
        case logNormal(median: Double, sigma: Double, max: Int)
    }

    public static func named(_ name: Name) -> WorkloadShape {
        switch name {
        case .benchmark: return .benchmark
        case .real: return .real
        case .outcomes: return .outcomes
        case .holdouts: return .holdouts
        case .anonymous: return .anonymous
        }
    }

    /// Today's benchmark data (until issue 33, `sql/bench/report_events.sql`): 8 categories,
    /// 3 app versions, iOS and watchOS, 4 campaigns and none, variants A/B, half rich,
    /// 80 % delivered, 17 % responses, 3 % sent, engagement independent of everything.
    public static let benchmark: WorkloadShape = {
        let perNotification = 0.2125 // responses per delivered: 17 % of events against 80 %
        let categories = ["message", "social_post", "promo", "news", "reminder", "order_update", "chat", "digest"].map {
            Category(identifier: $0, weight: 1, marketing: false, openRate: perNotification / 3, actionRate: perNotification / 2,
                     dismissRate: perNotification / 6,
                     actions: [Action("reply", textInput: true), Action("like"), Action("shop_now")], customDismiss: false)
        }
        // 55 % request media and 50 % show it, as before.
        let failure = 1 - 0.50 / 0.55
        return WorkloadShape(
            name: .benchmark,
            categories: categories,
            platforms: [
                Platform(name: "iOS", weight: 0.9, osVersions: [("18.1", 1)], mediaFailure: failure, engagement: 1),
                Platform(name: "watchOS", weight: 0.1, osVersions: [("11.1", 1)], mediaFailure: failure, engagement: 1),
            ],
            versions: .fixed(["3.2.1", "3.2.0", "3.1.0"]),
            campaigns: Campaigns(
                standing: ["winter-sale", "spring", "onboarding", "reengage"],
                standingVariants: [.init(name: "A", weight: 0.4, mediaRequested: 0.55), .init(name: "B", weight: 0.4, mediaRequested: 0.55),
                                   .init(name: nil, weight: 0.2, mediaRequested: 0.55)],
                perDay: 0, lifetimeDays: 1...1, twoCategoryShare: 0, richShareMarketing: 0, richShareOther: 0,
                mediaTestShareMarketing: 0, mediaTestShareOther: 0, variantTestShare: 0, sizeSpread: 0, engagementSpread: 0,
                richCampaignEngagement: 1, platformMixes: [PlatformMix(name: "all", share: 1, weights: [1, 1])]),
            noCampaignShare: 0.2, noCampaignMediaRequested: 0.55,
            mediaKinds: [(.image, 1)],
            richUplift: 1, sentShare: 0.0375, unregisteredShare: 0,
            diurnalAmplitude: 0, diurnalPeakHourUTC: 0,
            replyLength: .uniform(1...121),
            storesManifests: false)
    }()

    /// A real app that notifies its users (issue 33): 30 categories whose shares fall as 1/rank,
    /// 80 campaigns started a day living one to three days, 40 app versions released weekly,
    /// iOS, iPadOS, watchOS, macOS and visionOS, OS majors 16 to 26, variants A/B on half the
    /// campaigns, and engagement that depends on category, campaign, variant, platform and media.
    public static let real: WorkloadShape = {
        // identifier, marketing, open, custom action and dismiss rates, actions (text input marked).
        let table: [(String, Bool, Double, Double, Double, [Action])] = [
            ("message", false, 0.22, 0.10, 0.04, [Action("reply", weight: 0.7, textInput: true), Action("mark_read", weight: 0.3)]),
            ("chat_message", false, 0.20, 0.08, 0.03, [Action("reply", weight: 0.8, textInput: true), Action("mute", weight: 0.2)]),
            ("order_update", false, 0.18, 0.03, 0.02, [Action("track_order", weight: 0.8), Action("contact_support", weight: 0.2)]),
            ("promo_offer", true, 0.035, 0.012, 0.02, [Action("shop_now", weight: 0.7), Action("save_offer", weight: 0.3)]),
            ("social_like", false, 0.08, 0.02, 0.03, [Action("view_profile")]),
            ("comment", false, 0.15, 0.06, 0.03, [Action("reply", weight: 0.6, textInput: true), Action("like", weight: 0.4)]),
            ("daily_digest", true, 0.05, 0.01, 0.03, [Action("read_later")]),
            ("breaking_news", true, 0.09, 0.01, 0.02, [Action("save_article", weight: 0.6), Action("share", weight: 0.4)]),
            ("reminder", false, 0.12, 0.10, 0.05, [Action("snooze", weight: 0.4), Action("mark_done", weight: 0.6)]),
            ("price_drop", true, 0.06, 0.02, 0.02, [Action("buy_now", weight: 0.7), Action("unwatch", weight: 0.3)]),
            ("mention", false, 0.25, 0.05, 0.02, [Action("reply", textInput: true)]),
            ("friend_request", false, 0.20, 0.15, 0.03, [Action("accept", weight: 0.7), Action("decline", weight: 0.3)]),
            ("cart_reminder", true, 0.04, 0.02, 0.02, [Action("checkout", weight: 0.8), Action("remove_items", weight: 0.2)]),
            ("delivery_eta", false, 0.16, 0.02, 0.01, [Action("track_order")]),
            ("event_invite", false, 0.14, 0.12, 0.03, [Action("accept", weight: 0.5), Action("decline", weight: 0.3), Action("maybe", weight: 0.2)]),
            ("back_in_stock", true, 0.07, 0.03, 0.02, [Action("buy_now")]),
            ("payment_received", false, 0.12, 0.01, 0.01, [Action("view_receipt")]),
            ("security_alert", false, 0.30, 0.10, 0.01, [Action("it_was_me", weight: 0.8), Action("secure_account", weight: 0.2)]),
            ("weekly_summary", true, 0.04, 0.005, 0.03, []),
            ("streak_reminder", true, 0.06, 0.04, 0.04, [Action("start_lesson", weight: 0.7), Action("snooze", weight: 0.3)]),
            ("workout_reminder", false, 0.08, 0.06, 0.05, [Action("start_workout", weight: 0.6), Action("snooze", weight: 0.4)]),
            ("medication_reminder", false, 0.10, 0.25, 0.02, [Action("taken", weight: 0.9), Action("skip", weight: 0.1)]),
            ("ride_update", false, 0.20, 0.03, 0.01, [Action("contact_driver")]),
            ("live_score", true, 0.11, 0.01, 0.03, [Action("follow_team")]),
            ("new_follower", false, 0.10, 0.04, 0.02, [Action("follow_back")]),
            ("survey", true, 0.02, 0.015, 0.04, [Action("rate_good", weight: 0.6), Action("rate_bad", weight: 0.4)]),
            ("app_update", true, 0.03, 0.01, 0.02, [Action("update_now")]),
            ("recommendation", true, 0.045, 0.015, 0.02, [Action("watch_now", weight: 0.7), Action("not_interested", weight: 0.3)]),
            ("login_code", false, 0.35, 0.02, 0, [Action("copy_code")]),
            ("account_notice", false, 0.06, 0.01, 0.01, []),
        ]
        let categories = table.enumerated().map { rank, row in
            Category(identifier: row.0, weight: 1 / Double(rank + 1), marketing: row.1, openRate: row.2, actionRate: row.3,
                     dismissRate: row.4, actions: row.5, customDismiss: row.4 > 0)
        }
        return WorkloadShape(
            name: .real,
            categories: categories,
            platforms: [
                Platform(name: "iOS", weight: 0.80,
                         osVersions: [("26.1", 0.30), ("26.0", 0.15), ("18.7", 0.25), ("18.6", 0.13), ("17.7", 0.09), ("17.6", 0.03), ("16.7", 0.05)],
                         mediaFailure: 0.03, engagement: 1),
                Platform(name: "iPadOS", weight: 0.10,
                         osVersions: [("26.1", 0.25), ("26.0", 0.12), ("18.7", 0.25), ("18.6", 0.13), ("17.7", 0.12), ("16.7", 0.13)],
                         mediaFailure: 0.04, engagement: 0.85),
                Platform(name: "watchOS", weight: 0.06, osVersions: [("26.1", 0.35), ("26.0", 0.12), ("11.6", 0.33), ("10.6", 0.20)],
                         mediaFailure: 0.22, engagement: 0.5),
                Platform(name: "macOS", weight: 0.03, osVersions: [("26.1", 0.30), ("26.0", 0.10), ("15.7", 0.40), ("14.8", 0.20)],
                         mediaFailure: 0.07, engagement: 0.6),
                Platform(name: "visionOS", weight: 0.01, osVersions: [("26.1", 0.50), ("26.0", 0.10), ("2.5", 0.40)],
                         mediaFailure: 0.05, engagement: 0.9),
            ],
            versions: .releases(count: 40, everyDays: 7, newestAgeDays: 3, adoptionDays: 2, abandonDays: 10, floor: 0.002),
            campaigns: Campaigns(
                standing: [], standingVariants: [],
                perDay: 80, lifetimeDays: 1...3, twoCategoryShare: 0.3,
                richShareMarketing: 0.55, richShareOther: 0.12,
                mediaTestShareMarketing: 0.2, mediaTestShareOther: 0.05, variantTestShare: 0.3,
                sizeSpread: 1.0, engagementSpread: 0.45, richCampaignEngagement: 0.75,
                platformMixes: [
                    PlatformMix(name: "everyone", share: 0.55, weights: [1, 1, 1, 1, 1]),
                    PlatformMix(name: "iPhone and iPad", share: 0.25, weights: [1, 1, 0, 0, 0]),
                    PlatformMix(name: "iPhone", share: 0.12, weights: [1, 0, 0, 0, 0]),
                    PlatformMix(name: "watch", share: 0.05, weights: [0.2, 0, 1, 0, 0]),
                    PlatformMix(name: "Mac and Vision Pro", share: 0.03, weights: [0, 0.3, 0, 1, 1]),
                ]),
            noCampaignShare: 0.15, noCampaignMediaRequested: 0.12,
            mediaKinds: [(.image, 0.8), (.video, 0.15), (.audio, 0.05)],
            richUplift: 1.15, sentShare: 0.035, unregisteredShare: 0.002,
            diurnalAmplitude: 0.5, diurnalPeakHourUTC: 17,
            replyLength: .logNormal(median: 22, sigma: 0.9, max: 1000),
            storesManifests: true, installIds: true)
    }()

    /// The real app whose devices also post conversions: about 0.14 per notification (a tenth of
    /// the events), a third of them purchases with a value.
    public static let outcomes: WorkloadShape = {
        var shape = WorkloadShape.real
        shape.name = .outcomes
        shape.conversions = Conversions(
            afterTap: 0.30, afterDelivery: 0.11,
            names: [.init(name: "purchase", weight: 0.35, valued: true), .init(name: "add_to_cart", weight: 0.4, valued: false),
                    .init(name: "signup", weight: 0.25, valued: false)],
            valueMedian: 25, valueSigma: 1.1, currency: "EUR")
        return shape
    }()

    /// The real app without install ids: the same events, none with a device's id, so none is in
    /// events_by_device or attribution's queue.
    public static let anonymous: WorkloadShape = {
        var shape = WorkloadShape.real
        shape.name = .anonymous
        shape.installIds = false
        return shape
    }()

    /// The real app with conversions whose every campaign holds out 10 % of its devices: about
    /// one assignment per campaign notification, a third of the events.
    public static let holdouts: WorkloadShape = {
        var shape = WorkloadShape.outcomes
        shape.name = .holdouts
        shape.assignments = Assignments(holdoutShare: 0.1)
        return shape
    }()

    /// The app versions' names, oldest first.
    public var versionNames: [String] {
        switch versions {
        case .fixed(let names): return names
        case .releases(let count, _, _, _, _, _):
            // 6.0.0 … 6.3.9: forty versions, ten patch releases to a minor.
            return (0..<count).map { "6.\($0 / 10).\($0 % 10)" }
        }
    }

    /// One manifest per app version, every category registered (none when the shape stores none).
    public var manifests: [Manifest] {
        guard storesManifests else { return [] }
        let registered = categories.map { category in
            ManifestCategory(identifier: category.identifier, options: category.customDismiss ? ["customDismissAction"] : [],
                             actions: category.actions.map { ManifestAction(identifier: $0.identifier, textInput: $0.textInput) })
        }
        return versionNames.map { Manifest(appVersion: $0, categories: registered) }
    }
}
