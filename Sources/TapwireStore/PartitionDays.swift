import Synchronization

/// The UTC days that have an events partition, shared by every writer of a process so each
/// day's partition is created once; a day not in the set costs one idempotent function call.
public final class PartitionDays: Sendable {
    private let known = Mutex<Set<Int64>>([])
    public init() {}

    func missing(_ days: Set<Int64>) -> [Int64] { known.withLock { set in days.subtracting(set).sorted() } }
    func insert(_ days: [Int64]) { known.withLock { $0.formUnion(days) } }
    public func forget() { known.withLock { $0.removeAll() } }
}
