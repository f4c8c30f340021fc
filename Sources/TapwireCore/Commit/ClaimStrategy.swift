/// How a group commit claims its events' ids in the dedup index. `bulk` COPYs them straight in:
/// cheapest by far, but one id stored before fails the whole statement. `skipping` stages them
/// and inserts with ON CONFLICT DO NOTHING, which skips such ids. Duplicates come in bursts
/// (clients resending batches whose answer they lost, after an outage or a timeout), so after a
/// group met one the next `cautiousGroups` groups skip; then bulk is tried again. A pure value:
/// EventWriter asks `mode` and reports what happened.
public struct ClaimStrategy: Sendable, Equatable {
    public enum Mode: Sendable, Equatable {
        case bulk
        case skipping
    }

    /// Groups claimed with `skipping` after one met a duplicate.
    public var cautiousGroups: Int
    private var skippingLeft = 0

    public init(cautiousGroups: Int = 32) {
        self.cautiousGroups = max(0, cautiousGroups)
    }

    public var mode: Mode { skippingLeft > 0 ? .skipping : .bulk }

    /// A bulk claim failed on an id stored before: the group is claimed again with `skipping`.
    public mutating func bulkClaimHitDuplicate() {
        skippingLeft = max(skippingLeft, cautiousGroups, 1)
    }

    /// A group committed; `storedBefore` of its ids had been stored by earlier commits.
    public mutating func committed(storedBefore: Int) {
        if storedBefore > 0 {
            skippingLeft = cautiousGroups
        } else if skippingLeft > 0 {
            skippingLeft -= 1
        }
    }
}
