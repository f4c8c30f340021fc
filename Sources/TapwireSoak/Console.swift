import Foundation
import Synchronization

/// Unbuffered, so the progress shows when the output is a pipe.
func say(_ text: String) { FileHandle.standardOutput.write(Data(("soak: " + text + "\n").utf8)) }

/// How the soak gives up on an error it cannot run past (exit 2): what was started (the database,
/// the collector) registers how to stop it, and `fail` stops it, newest first.
final class Teardown: Sendable {
    private let steps = Mutex<[@Sendable () -> Void]>([])

    func add(_ step: @escaping @Sendable () -> Void) { steps.withLock { $0.append(step) } }

    func fail(_ text: String) -> Never {
        FileHandle.standardError.write(Data("tapwire-soak: \(text)\n".utf8))
        for step in steps.withLock({ $0 }).reversed() { step() }
        exit(2)
    }
}

/// When recording starts (after the bench): the fault schedule and the deadline count from here.
struct RecordingClock: Sendable {
    let started = Date()
    func elapsed() -> Double { Date().timeIntervalSince(started) }
    func stamp() -> String { String(format: "%6.1fs", elapsed()) }
}
