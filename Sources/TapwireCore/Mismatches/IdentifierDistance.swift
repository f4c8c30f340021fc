// How alike two identifiers are: the measure behind case_mismatch, near_miss and the suggested
// action of unregistered_action.

/// Identifier similarity: exact-but-for-case, then edit distance.
public enum IdentifierDistance {
    /// Optimal string alignment distance (Levenshtein plus adjacent transposition as one edit) over
    /// Unicode scalars; stops early and returns `limit + 1` once the distance must exceed `limit`.
    public static func distance(_ a: String, _ b: String, limit: Int = .max) -> Int {
        let x = Array(a.unicodeScalars), y = Array(b.unicodeScalars)
        if abs(x.count - y.count) > limit { return limit == .max ? limit : limit + 1 }
        if x.isEmpty { return y.count }
        if y.isEmpty { return x.count }
        var previous2 = [Int](repeating: 0, count: y.count + 1)
        var previous = Array(0...y.count)
        var current = [Int](repeating: 0, count: y.count + 1)
        for i in 1...x.count {
            current[0] = i
            var rowMin = current[0]
            for j in 1...y.count {
                let cost = x[i - 1] == y[j - 1] ? 0 : 1
                var d = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, x[i - 1] == y[j - 2], x[i - 2] == y[j - 1] { d = min(d, previous2[j - 2] + 1) }
                current[j] = d
                rowMin = min(rowMin, d)
            }
            if rowMin > limit { return limit + 1 }
            (previous2, previous, current) = (previous, current, previous2)
        }
        return previous[y.count]
    }

    public enum Match: Sendable, Equatable {
        case caseOnly(String)
        case near(String, distance: Int)
    }

    /// The registered identifier `candidate` was most likely meant to be, if any. Case-only matches
    /// win; then the smallest distance; ties go to the identifier first in byte order, so the
    /// answer never depends on dictionary order.
    public static func closest(to candidate: String, among registered: [String], rules: MismatchRules) -> Match? {
        let folded = candidate.lowercased()
        let ordered = registered.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        // By bytes, as iOS matches: a registered identifier in another normal form is not the
        // candidate, nor the same but for case (docs/mismatches.md).
        if let same = ordered.first(where: { !String.sameBytes($0, candidate) && String.sameBytes($0.lowercased(), folded) }) {
            return .caseOnly(same)
        }
        var best: (String, Int)?
        for name in ordered where !String.sameBytes(name, candidate) {
            let allowed = rules.allowedDistance(candidate, name)
            guard allowed > 0 else { continue }
            let d = distance(folded, name.lowercased(), limit: allowed)
            if d <= allowed, best.map({ d < $0.1 }) ?? true { best = (name, d) }
        }
        return best.map { .near($0.0, distance: $0.1) }
    }
}
