import Foundation

extension Timestamp {
    /// The wall clock now.
    public static var now: Timestamp { Timestamp(seconds: Date().timeIntervalSince1970) }
}

/// A monotonic clock reading in nanoseconds, for latencies and timeouts (never for event times).
public func monotonicNanoseconds() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

/// Seconds elapsed since `start`, a reading of `monotonicNanoseconds()`: the one conversion every
/// timer, rate and latency uses.
public func secondsSince(_ start: UInt64) -> Double { Double(monotonicNanoseconds() &- start) / 1e9 }
