import Foundation
import TapwireCore
import TapwireStore
#if canImport(Glibc)
import Glibc
#endif

/// A child process run to its end or to a time limit, whichever comes first: its exit status,
/// its wall time and its peak resident memory (VmHWM, sampled every 2 ms while it runs: growth in
/// its last 2 ms can be missed. `wait4`'s `ru_maxrss` cannot be used: posix_spawn's child runs
/// in this process's memory until it execs, and Linux counts that in). The report benchmark runs
/// `tapwire rollups rebuild` and `tapwire report` this way, so one that takes minutes and
/// gigabytes is stopped and reported as such instead of holding the run.
struct TimedChild {
    /// nil: still running at the limit, so it was killed.
    var status: Int32?
    var seconds: Double
    var peakResidentBytes: Int
    var log: String

    var exceeded: Bool { status == nil }

    static func run(_ executable: String, _ arguments: [String], limit seconds: Double, logName: String) throws -> TimedChild {
        let log = NSTemporaryDirectory() + "\(logName)-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).log"
        let began = monotonicNanoseconds()
        let child = try Subprocess.spawn(executable, arguments, logPath: log)
        let deadline = began + UInt64(seconds * 1e9)
        var status: Int32 = 0
        var exit: Int32?
        var peak = 0
        while true {
            peak = max(peak, child.peakResidentBytes)
            let reaped = waitpid(child.pid, &status, WNOHANG)
            if reaped == child.pid {
                exit = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
                break
            }
            if reaped == -1, errno != EINTR { break }
            if monotonicNanoseconds() > deadline {
                child.signal(SIGKILL)
                while waitpid(child.pid, &status, 0) == -1, errno == EINTR {}
                break
            }
            usleep(2_000)
        }
        let elapsed = secondsSince(began)
        return TimedChild(status: exit, seconds: elapsed, peakResidentBytes: peak, log: log)
    }

    /// The child's output (its log file).
    var output: String { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }

    /// Removes its log, once what it said has been read.
    func discardLog() { try? FileManager.default.removeItem(atPath: log) }
}
