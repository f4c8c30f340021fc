import Foundation

/// Counts per bin, merged from rollup rows; percentiles by the nearest-rank rule.
public struct BinnedHistogram: Sendable, Equatable {
    public private(set) var counts: [Int: Int] = [:]
    public private(set) var total = 0

    public init() {}

    public init(_ pairs: [(bin: Int, count: Int)]) {
        for pair in pairs { add(bin: pair.bin, count: pair.count) }
    }

    public mutating func add(bin: Int, count: Int) {
        guard count > 0 else { return }
        counts[bin, default: 0] += count
        total += count
    }

    public mutating func merge(_ other: BinnedHistogram) {
        for (bin, count) in other.counts { add(bin: bin, count: count) }
    }

    /// The bin holding the q-quantile (0 < q ≤ 1): the smallest bin whose cumulative count
    /// reaches ⌈q·N⌉. Nil when the histogram is empty.
    public func percentileBin(_ q: Double) -> Int? {
        guard total > 0 else { return nil }
        let rank = max(1, Int((q * Double(total)).rounded(.up)))
        var cumulative = 0
        for bin in counts.keys.sorted() {
            cumulative += counts[bin]!
            if cumulative >= rank { return bin }
        }
        return counts.keys.max()
    }
}
