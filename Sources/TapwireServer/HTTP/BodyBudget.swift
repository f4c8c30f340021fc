import Foundation
import Synchronization

/// The bytes of decoded request bodies the whole server may hold at once.
final class BodyBudget: Sendable {
    let limit: Int
    private let held = Atomic<Int>(0)

    init(limit: Int) { self.limit = limit }

    var used: Int { held.load(ordering: .relaxed) }

    func reserve(_ bytes: Int) -> Bool {
        guard bytes > 0 else { return true }
        if held.wrappingAdd(bytes, ordering: .relaxed).newValue > limit {
            held.wrappingSubtract(bytes, ordering: .relaxed)
            return false
        }
        return true
    }

    func release(_ bytes: Int) { if bytes > 0 { held.wrappingSubtract(bytes, ordering: .relaxed) } }
}
