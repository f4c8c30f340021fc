/// A family's own facts behind one finding (a mismatch's tallies, a regression's intervals).
/// Only its family reads inside it: the family renders it (TapwireReport's `FindingFamily`).
public protocol FindingEvidence: Sendable {
    /// What tells findings of one kind and category apart in the outbox (`FindingKey.detail`):
    /// '' when the category is enough.
    var keyDetail: String { get }

    func isEqual(to other: any FindingEvidence) -> Bool
}

extension FindingEvidence where Self: Equatable {
    public func isEqual(to other: any FindingEvidence) -> Bool { (other as? Self) == self }
}
