import Foundation

/// One stratum's 2×2 table: successes and trials of the first group (rich) and of the second
/// (text-only). A stratum is one combination of the dimensions a comparison is adjusted for.
public struct StratumCounts: Sendable, Equatable {
    public var x1: Int, n1: Int, x2: Int, n2: Int

    public init(x1: Int, n1: Int, x2: Int, n2: Int) {
        self.x1 = x1
        self.n1 = n1
        self.x2 = x2
        self.n2 = n2
    }

    /// Both groups present: only such a stratum says anything about the difference.
    public var contributes: Bool { n1 > 0 && n2 > 0 }
    public var isValid: Bool { n1 >= 0 && n2 >= 0 && (0...max(0, n1)).contains(x1) && (0...max(0, n2)).contains(x2) }
}
