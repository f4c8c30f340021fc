import Foundation
import Synchronization

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
