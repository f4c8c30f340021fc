import Foundation
import Synchronization

/// Where log lines go. The default writes each line with one write(2) to standard error, so
/// lines from different threads never interleave.
public final class LogSink: Sendable {
    private let lines: Mutex<[String]?>
    private let handle: FileHandle?

    public static let standardError = LogSink(handle: FileHandle.standardError)

    init(handle: FileHandle?) {
        self.handle = handle
        self.lines = Mutex(handle == nil ? [] : nil)
    }

    /// A sink that keeps lines in memory, for tests that check what was logged.
    public static func memory() -> LogSink { LogSink(handle: nil) }

    func write(_ line: String) {
        if let handle {
            handle.write(Data((line + "\n").utf8))
        } else {
            lines.withLock { $0?.append(line) }
        }
    }

    public var capturedLines: [String] { lines.withLock { $0 ?? [] } }
}
