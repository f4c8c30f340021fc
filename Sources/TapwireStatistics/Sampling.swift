import Foundation

/// Draws from the distributions the simulations need, from a `SeededGenerator`, so a seed always
/// gives the same draws: uniform, standard normal (Box–Muller), Poisson and binomial.
public enum Sampling {
    /// Uniform on `range`.
    public static func uniform(_ range: ClosedRange<Double>, _ rng: inout SeededGenerator) -> Double {
        range.lowerBound + (range.upperBound - range.lowerBound) * unit(&rng)
    }

    /// (0, 1), never 0.
    public static func unit(_ rng: inout SeededGenerator) -> Double { (Double(rng.next() >> 11) + 0.5) * 0x1p-53 }

    /// Box–Muller.
    public static func normal(_ rng: inout SeededGenerator) -> Double {
        (-2 * log(unit(&rng))).squareRoot() * cos(2 * Double.pi * unit(&rng))
    }

    /// Knuth's product of uniforms below 30; a rounded normal above (close enough for counts that large).
    public static func poisson(_ mean: Double, _ rng: inout SeededGenerator) -> Int {
        guard mean > 0 else { return 0 }
        if mean >= 30 { return max(0, Int((mean + mean.squareRoot() * normal(&rng)).rounded())) }
        let limit = exp(-mean)
        var k = 0, product = unit(&rng)
        while product > limit {
            k += 1
            product *= unit(&rng)
        }
        return k
    }

    /// Geometric waiting times while the expected count is small (exact); a rounded normal beyond.
    public static func binomial(_ n: Int, _ p: Double, _ rng: inout SeededGenerator) -> Int {
        guard n > 0, p > 0 else { return 0 }
        if p >= 1 { return n }
        if p > 0.5 { return n - binomial(n, 1 - p, &rng) }
        let mean = Double(n) * p
        if mean < 25 {
            // Count the successes by the gaps between them.
            let logQ = log1p(-p)
            var x = 0, position = 0
            while true {
                position += Int(log(unit(&rng)) / logQ) + 1
                if position > n { return x }
                x += 1
            }
        }
        let sd = (mean * (1 - p)).squareRoot()
        return min(n, max(0, Int((mean + sd * normal(&rng)).rounded())))
    }
}
