import CMicroHTTPD
import Foundation

/// The upload watchdog's sense of time. A sweep that comes much later than scheduled means this
/// process was not running (the machine paused, the process stopped or starved of CPU): that gap
/// is nobody's stall, so it is excused rather than charged to every client at once.
struct WatchdogClock: Sendable {
    let interval: UInt64
    /// A gap between sweeps above this is a pause.
    let tolerance: UInt64
    private(set) var lastSweep: UInt64?

    init(interval: UInt64, tolerance: UInt64) {
        self.interval = interval
        self.tolerance = tolerance
    }

    /// The time to excuse at this sweep: 0 normally; after a pause, the gap less one interval.
    mutating func excuse(now: UInt64) -> UInt64 {
        defer { lastSweep = now }
        guard let last = lastSweep, now > last else { return 0 }
        let gap = now - last
        return gap > tolerance ? gap - interval : 0
    }
}
