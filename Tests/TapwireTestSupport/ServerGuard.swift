import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif
import TapwireStore

/// Stops the PostgreSQL servers a test process started when that process ends without stopping
/// them: killed (SIGKILL, a timeout), crashed (a Swift trap), where no `atexit`, `defer` or
/// `deinit` runs. A guardian process, in a session of its own (so a signal to the test's
/// process group spares it), waits on a pipe only this process can write to; the kernel closes
/// that end when this process ends, however it ends, and the guardian then stops each data
/// directory's server (`pg_ctl stop -m immediate`, which signals the pid in that directory's
/// postmaster.pid: only a server this process started) and removes the directory.
///
/// The owner is also recorded in the directory (`.tapwire-guard`: pid and start time), and every
/// new guard first stops what a dead owner left whose guardian did not (was killed too):
/// `sweepAbandoned`. docs/deployment.md, "Testing on Citus".
public final class ServerGuard: Sendable {
    /// This process's end of the pipe, -1 once released.
    private let writeEnd: Mutex<Int32>
    private let guardian: Subprocess.Child

    private init(writeEnd: Int32, guardian: Subprocess.Child) {
        self.writeEnd = Mutex(writeEnd)
        self.guardian = guardian
    }

    /// What the guardian does once its standard input ends: $1 the directory to remove, $2 the
    /// server binaries, the rest the data directories; GUARD_LINK and GUARD_NETNS, when set, a
    /// veth link and a network namespace to delete as well.
    static let script = """
        while read -r _; do :; done
        dir=$1; pg_ctl=$2/pg_ctl; shift 2
        for data in "$@"; do
          [ -f "$data/postmaster.pid" ] || continue
          pid=$(head -n 1 "$data/postmaster.pid")
          if [ "$(id -u)" -eq 0 ]; then /sbin/runuser -u postgres -- "$pg_ctl" -D "$data" -m immediate -w stop
          else "$pg_ctl" -D "$data" -m immediate -w stop; fi
          # pg_ctl returns once the pid file is gone, which the postmaster removes just before it
          # exits: wait for the exit itself (a zombie has exited), at most 60 s.
          n=0
          while [ -n "$pid" ] && [ "$n" -lt 600 ] && [ -r "/proc/$pid/status" ] && ! grep -q '^State:[[:space:]]*Z' "/proc/$pid/status"; do
            sleep 0.1; n=$((n + 1))
          done
        done
        [ -n "${GUARD_LINK:-}" ] && /usr/sbin/ip link del "$GUARD_LINK"
        [ -n "${GUARD_NETNS:-}" ] && /usr/sbin/ip netns del "$GUARD_NETNS"
        rm -rf "$dir"
        """

    static let recordName = ".tapwire-guard"

    /// Guards the servers of `dataDirectories` (inside `directory`) until `release()` or until
    /// this process ends. Call it before starting them.
    public static func start(directory: String, dataDirectories: [String], binDirectory: String,
                             namespace: String? = nil, link: String? = nil) throws -> ServerGuard {
        sweepAbandoned()
        try record(directory: directory, dataDirectories: dataDirectories, binDirectory: binDirectory)
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw POSIXError(.EMFILE) }
        // Not inherited by anything else this process runs (pg_ctl's server above all).
        _ = fcntl(ends[1], F_SETFD, FD_CLOEXEC)
        var environment: [String: String] = [:]
        if let namespace { environment["GUARD_NETNS"] = namespace }
        if let link { environment["GUARD_LINK"] = link }
        let guardian: Subprocess.Child
        do {
            guardian = try Subprocess.spawn("/usr/bin/setsid", ["/bin/sh", "-c", script, "tapwire-server-guard", directory, binDirectory]
                                                + dataDirectories,
                                            logPath: "/dev/null", environment: environment, standardInput: ends[0])
        } catch {
            close(ends[0])
            close(ends[1])
            throw error
        }
        close(ends[0])
        return ServerGuard(writeEnd: ends[1], guardian: guardian)
    }

    /// Guards for the rest of this process's life, for a server whose owner keeps no object (a
    /// suite's private cluster): its end of the pipe stays open until the process ends.
    public static func untilExit(directory: String, dataDirectories: [String], binDirectory: String) throws {
        let handle = try start(directory: directory, dataDirectories: dataDirectories, binDirectory: binDirectory)
        _ = handle.writeEnd.withLock { end in
            let kept = end
            end = -1
            return kept
        }
    }

    /// The servers were stopped: the guardian finds nothing running, removes the directory and
    /// exits (waited for, so no zombie is left). Once.
    public func release() {
        let end = writeEnd.withLock { end in
            let was = end
            end = -1
            return was
        }
        guard end >= 0 else { return }
        close(end)
        _ = guardian.wait(timeout: 60)
    }

    deinit { release() }

    /// Writes the owner record: this process's pid and start time, then what is guarded.
    static func record(directory: String, dataDirectories: [String], binDirectory: String) throws {
        let owner = getpid()
        guard let started = startTime(of: owner) else { throw TestClientError(message: "no start time for pid \(owner) in /proc") }
        let lines = ["\(owner) \(started)", binDirectory] + dataDirectories
        try (lines.joined(separator: "\n") + "\n").write(toFile: directory + "/" + recordName, atomically: true, encoding: .utf8)
    }

    /// Stops the servers of every directory under /tmp that a guard recorded and whose owner
    /// is gone (its pid not running, or running with another start time: reused), and removes
    /// the directory. A directory without a record, or with a live owner, is left alone.
    public static func sweepAbandoned(in parent: String = "/tmp") {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: parent) else { return }
        for name in names where name.hasPrefix("tapwire-") {
            let directory = parent + "/" + name
            guard let text = try? String(contentsOfFile: directory + "/" + recordName, encoding: .utf8) else { continue }
            let lines = text.split(separator: "\n").map(String.init)
            let owner = lines.first?.split(separator: " ").map(String.init) ?? []
            guard lines.count >= 2, owner.count == 2, let pid = Int32(owner[0]) else { continue }
            if startTime(of: pid) == owner[1] { continue }
            let pgctl = lines[1] + "/pg_ctl"
            for data in lines.dropFirst(2) where FileManager.default.fileExists(atPath: data + "/postmaster.pid") {
                let postmaster = (try? String(contentsOfFile: data + "/postmaster.pid", encoding: .utf8))?
                    .split(separator: "\n").first.flatMap { Int32($0) }
                let command = [pgctl, "-D", data, "-m", "immediate", "-w", "stop"]
                _ = geteuid() == 0 ? try? Subprocess.run("/sbin/runuser", ["-u", "postgres", "--"] + command)
                                   : try? Subprocess.run(command[0], Array(command.dropFirst()))
                if let postmaster { waitForExit(of: postmaster) }
            }
            try? FileManager.default.removeItem(atPath: directory)
        }
    }

    /// Waits until the process has exited (gone, or a zombie its parent has not reaped), at most
    /// 60 s: `pg_ctl stop -w` returns once postmaster.pid is gone, which the postmaster removes
    /// just before it exits, so a check right after it could still find the process running.
    public static func waitForExit(of pid: Int32) {
        for _ in 0..<600 {
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let close = stat.lastIndex(of: ")"),
                  stat[stat.index(after: close)...].split(separator: " ").first != "Z" else { return }
            usleep(100_000)
        }
    }

    /// Field 22 of /proc/<pid>/stat (clock ticks after boot): with the pid, it names one process.
    static func startTime(of pid: Int32) -> String? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return nil }
        // After the command's closing parenthesis: field 3 (state) onwards.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        return fields.count > 19 ? String(fields[19]) : nil
    }
}
