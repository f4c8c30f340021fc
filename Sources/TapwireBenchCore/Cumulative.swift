import Foundation
import TapwireCore
import TapwireStatistics

/// Cumulative weights, for drawing an index in proportion to its weight.
struct Cumulative: Sendable {
    let sums: [Double]

    init(_ weights: [Double]) {
        var total = 0.0
        sums = weights.map { total += max(0, $0); return total }
    }

    func pick(_ random: inout SeededGenerator) -> Int {
        let target = random.unit() * (sums.last ?? 0)
        var low = 0, high = sums.count - 1
        while low < high {
            let mid = (low + high) / 2
            if sums[mid] > target { high = mid } else { low = mid + 1 }
        }
        return low
    }
}
