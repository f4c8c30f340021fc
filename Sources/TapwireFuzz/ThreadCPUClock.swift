#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The CPU time the calling thread has used. The fuzz target's time budget is a guard against
/// superlinear parsing, so it counts the work done, not the wall clock: on a loaded machine a
/// linear parse waits for a core and its wall time grows, but its CPU time does not.
public enum ThreadCPUClock {
    static func nanoseconds() -> UInt64 {
        var now = timespec()
        // clock_gettime fails only for an unknown clock id; this one exists on Linux and Darwin.
        guard clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now) == 0 else { return 0 }
        return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
    }

    /// Seconds of the calling thread's CPU time that `body` used.
    public static func seconds<T>(of body: () throws -> T) rethrows -> (result: T, seconds: Double) {
        let started = nanoseconds()
        let result = try body()
        return (result, Double(nanoseconds() - started) / 1e9)
    }
}
