import Foundation
import TapwireCore
import TapwireStatistics

/// A campaign of the plan: when it sends, to whom, what, and how well it engages.
public struct PlannedCampaign: Sendable, Equatable {
    public struct Variant: Sendable, Equatable {
        public var name: String?
        public var weight: Double
        /// The share of its notifications that request media.
        public var mediaRequested: Double
        public var engagement: Double
    }

    public var name: String?
    public var start: Timestamp
    public var end: Timestamp
    /// The time constant of its sends' decay, in days (nil: it sends evenly).
    public var decayDays: Double?
    /// Indices into the shape's categories, with weights (empty: the shape's own weights).
    public var categories: [(index: Int, weight: Double)]
    /// A weight per platform: who it is sent to.
    public var platformWeights: [Double]
    public var size: Double
    public var engagement: Double
    public var variants: [Variant]
    public var mediaKinds: MediaKinds

    public static func == (a: PlannedCampaign, b: PlannedCampaign) -> Bool {
        a.name == b.name && a.start == b.start && a.end == b.end && a.decayDays == b.decayDays
            && a.categories.map(\.index) == b.categories.map(\.index) && a.categories.map(\.weight) == b.categories.map(\.weight)
            && a.platformWeights == b.platformWeights && a.size == b.size && a.engagement == b.engagement
            && a.variants == b.variants && a.mediaKinds == b.mediaKinds
    }

    /// Sending at `time`.
    public func isLive(at time: Timestamp) -> Bool { start <= time && time < end }

    /// How much it sends around `time` (its size × its decay), 0 outside its life.
    func intensity(at time: Timestamp) -> Double {
        guard let decay = decayDays else { return size }
        let age = Double(time.microseconds - start.microseconds) / 86_400_000_000
        guard age >= 0, time < end else { return 0 }
        return size * exp(-age / decay) / decay
    }
}
