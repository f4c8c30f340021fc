import Foundation

/// When recording starts (after the bench): the fault schedule and the deadline count from here.
struct RecordingClock: Sendable {
    let started = Date()
    func elapsed() -> Double { Date().timeIntervalSince(started) }
    func stamp() -> String { String(format: "%6.1fs", elapsed()) }
}
