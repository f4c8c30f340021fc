import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Runs a program and waits for it, with posix_spawn and waitpid: predictable where a server
/// started by the child keeps inherited descriptors open (pg_ctl start does).
public enum Subprocess {
    public struct Result: Sendable {
        public var status: Int32
        public var output: String
        public init(status: Int32, output: String) {
            self.status = status
            self.output = output
        }
    }

    /// `captureOutput: false` sends stdout and stderr to /dev/null.
    public static func run(_ executable: String, _ arguments: [String], captureOutput: Bool = true) throws -> Result {
        var fileActions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&fileActions)
        defer { posix_spawn_file_actions_destroy(&fileActions) }
        var pipeFDs: [Int32] = [-1, -1]
        posix_spawn_file_actions_addopen(&fileActions, 0, "/dev/null", O_RDONLY, 0)
        if captureOutput {
            guard pipe(&pipeFDs) == 0 else { throw POSIXError(.EMFILE) }
            posix_spawn_file_actions_adddup2(&fileActions, pipeFDs[1], 1)
            posix_spawn_file_actions_adddup2(&fileActions, pipeFDs[1], 2)
            posix_spawn_file_actions_addclose(&fileActions, pipeFDs[0])
            posix_spawn_file_actions_addclose(&fileActions, pipeFDs[1])
        } else {
            posix_spawn_file_actions_addopen(&fileActions, 1, "/dev/null", O_WRONLY, 0)
            posix_spawn_file_actions_addopen(&fileActions, 2, "/dev/null", O_WRONLY, 0)
        }
        closeInheritedDescriptors(&fileActions, keep: captureOutput ? Set(pipeFDs) : [])
        let argv = [executable] + arguments
        var pid: pid_t = 0
        var attributes = cleanSignalAttributes()
        defer { posix_spawnattr_destroy(&attributes) }
        let spawned: Int32 = withCStrings(argv) { pointers in
            posix_spawn(&pid, executable, &fileActions, &attributes, pointers, environ)
        }
        if captureOutput { close(pipeFDs[1]) }
        guard spawned == 0 else {
            if captureOutput { close(pipeFDs[0]) }
            throw POSIXError(POSIXErrorCode(rawValue: spawned) ?? .ENOENT)
        }
        var output: [UInt8] = []
        if captureOutput {
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let n = buffer.withUnsafeMutableBytes { read(pipeFDs[0], $0.baseAddress, $0.count) }
                if n > 0 { output.append(contentsOf: buffer[0..<n]) } else if n == 0 || errno != EINTR { break }
            }
            close(pipeFDs[0])
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1, errno == EINTR {}
        let exitCode: Int32 = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        return Result(status: exitCode, output: String(decoding: output, as: UTF8.self))
    }

    /// A running child process.
    public final class Child: Sendable {
        public let pid: Int32
        init(pid: Int32) { self.pid = pid }

        public func signal(_ number: Int32) { _ = kill(pid, number) }

        /// Waits for the exit, up to `timeout` seconds; nil if it is still running then.
        public func wait(timeout: Double) -> Int32? {
            let deadline = Date().addingTimeInterval(timeout)
            while true {
                var status: Int32 = 0
                let result = waitpid(pid, &status, WNOHANG)
                if result == pid { return (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F) }
                if result == -1, errno != EINTR { return -1 }
                if Date() > deadline { return nil }
                usleep(20_000)
            }
        }

        /// Peak resident memory (VmHWM) in bytes, from /proc, while it runs.
        public var peakResidentBytes: Int {
            guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
                  let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
                  let kb = Int(line.split(separator: " ").dropFirst().first ?? "")
            else { return 0 }
            return kb * 1024
        }
    }

    /// Starts a program in the background with stdout and stderr appended to `logPath`, and
    /// extra environment variables on top of this process's environment. Its stdin is
    /// /dev/null, or a copy of `standardInput` (a descriptor of this process, left open here).
    public static func spawn(_ executable: String, _ arguments: [String], logPath: String,
                             environment extra: [String: String] = [:], standardInput: Int32? = nil) throws -> Child {
        var fileActions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&fileActions)
        defer { posix_spawn_file_actions_destroy(&fileActions) }
        if let standardInput {
            posix_spawn_file_actions_adddup2(&fileActions, standardInput, 0)
        } else {
            posix_spawn_file_actions_addopen(&fileActions, 0, "/dev/null", O_RDONLY, 0)
        }
        posix_spawn_file_actions_addopen(&fileActions, 1, logPath, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_adddup2(&fileActions, 1, 2)
        closeInheritedDescriptors(&fileActions, keep: [])
        var environment = ProcessInfo.processInfo.environment
        for (key, value) in extra { environment[key] = value }
        let envStrings = environment.map { "\($0.key)=\($0.value)" }
        var pid: pid_t = 0
        var attributes = cleanSignalAttributes()
        defer { posix_spawnattr_destroy(&attributes) }
        let spawned: Int32 = withCStrings([executable] + arguments) { argv in
            withCStrings(envStrings) { envp in
                posix_spawn(&pid, executable, &fileActions, &attributes, argv, envp)
            }
        }
        guard spawned == 0 else { throw POSIXError(POSIXErrorCode(rawValue: spawned) ?? .ENOENT) }
        return Child(pid: pid)
    }

    /// The child starts with no signal blocked and every signal's default action. posix_spawn
    /// otherwise passes on the calling thread's mask, and a thread of this process may block
    /// SIGTERM: a daemon that never unblocks it (PgBouncer) would then ignore its shutdown.
    private static func cleanSignalAttributes() -> posix_spawnattr_t {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        var none = sigset_t(), all = sigset_t()
        sigemptyset(&none)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        return attributes
    }

    /// The child gets stdin, stdout and stderr only: no socket, lock or pipe of this process
    /// leaks into it (a child holding a copy of a flock'd descriptor would keep the lock).
    /// glibc's closefrom action is not visible to Swift, so the open descriptors are listed from
    /// /proc/self/fd; closing one that has closed meanwhile is harmless in posix_spawn.
    private static func closeInheritedDescriptors(_ actions: inout posix_spawn_file_actions_t, keep: Set<Int32>) {
        let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd"))?.compactMap { Int32($0) } ?? []
        for fd in open where fd > 2 && !keep.contains(fd) {
            posix_spawn_file_actions_addclose(&actions, fd)
        }
    }

    private static func withCStrings<R>(_ strings: [String], _ body: (UnsafePointer<UnsafeMutablePointer<CChar>?>) -> R) -> R {
        let pointers = strings.map { strdup($0) }
        defer { pointers.forEach { free($0) } }
        let terminated = pointers + [nil]
        return terminated.withUnsafeBufferPointer { body($0.baseAddress!) }
    }
}
