import Foundation

/// Reply length in characters: one exact bucket per length up to `bound`, then one overflow
/// bucket. Replies are short, so exact buckets cost little and percentiles are exact.
public enum ReplyLengthBins {
    /// Lengths 0…bound have their own bin; anything longer lands in bin bound + 1.
    public static let bound = 500
    public static var overflowBin: Int { bound + 1 }

    public static func bin(forLength length: Int) -> Int { min(max(length, 0), overflowBin) }

    /// The length a bin stands for; the overflow bin reports bound + 1 (meaning "more than bound").
    public static func value(ofBin bin: Int) -> Double { Double(min(max(bin, 0), overflowBin)) }

    public static var resolution: String {
        "exact per character up to \(bound); longer replies share one bucket, reported as \(overflowBin)"
    }
}
