import Foundation

/// Time from delivery to response in seconds, in log-spaced buckets: bin 0 holds everything
/// under one second, bin k ≥ 1 holds [2^((k−1)/4), 2^(k/4)) seconds, and the last bin is open.
/// Latencies span milliseconds to days, so a relative resolution is the only one that fits.
public enum LatencyBins {
    public static let binsPerDoubling = 4
    public static let lastBin = 100

    /// The same rule as tapwire_latency_bin in SQL, for a latency in seconds.
    public static func bin(forSeconds seconds: Double) -> Int {
        guard seconds >= 1 else { return 0 }
        // 4·ln(x)/ln(2), evaluated as SQL does, so a value on a bin edge lands where SQL puts it.
        let k = 1 + Int(min(Double(lastBin), (Double(binsPerDoubling) * Foundation.log(seconds) / Foundation.log(2.0)).rounded(.down)))
        return min(k, lastBin)
    }

    /// The bin of `responded − delivered` in µs, bit for bit as tapwire_latency_bin computes it:
    /// PostgreSQL subtracts timestamps into an interval of whole days plus µs
    /// (interval_justify_hours), and date_part('epoch') adds `µs / 1e6` to `days × 86400`.
    public static func bin(forMicroseconds delta: Int64) -> Int {
        let perDay: Int64 = 86_400_000_000
        let days = delta / perDay, rest = delta % perDay
        return bin(forSeconds: Double(rest) / 1_000_000.0 + Double(days * 86_400))
    }

    public static func lowerBound(ofBin bin: Int) -> Double {
        bin <= 0 ? 0 : pow2(Double(bin - 1) / Double(binsPerDoubling))
    }

    public static func upperBound(ofBin bin: Int) -> Double {
        bin <= 0 ? 1 : (bin >= lastBin ? .infinity : pow2(Double(bin) / Double(binsPerDoubling)))
    }

    /// The bin's geometric midpoint (0.5 s for the sub-second bin): within ±maxRelativeError of
    /// any value in the bin.
    public static func value(ofBin bin: Int) -> Double {
        bin <= 0 ? 0.5 : pow2((Double(min(bin, lastBin)) - 0.5) / Double(binsPerDoubling))
    }

    /// 2^(1/(2·binsPerDoubling)) − 1, about 9.05%.
    public static var maxRelativeError: Double { pow2(1 / Double(2 * binsPerDoubling)) - 1 }

    public static var resolution: String {
        let percent = (maxRelativeError * 1000).rounded() / 10
        return "log-spaced, \(binsPerDoubling) buckets per doubling from 1 s; values are bucket midpoints, within ±\(percent)%"
    }

    private static func pow2(_ x: Double) -> Double { Foundation.exp2(x) }
}
