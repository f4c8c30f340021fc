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
        let argv = [executable] + arguments
        var pid: pid_t = 0
        let spawned: Int32 = withCStrings(argv) { pointers in
            posix_spawn(&pid, executable, &fileActions, nil, pointers, environ)
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

    private static func withCStrings<R>(_ strings: [String], _ body: (UnsafePointer<UnsafeMutablePointer<CChar>?>) -> R) -> R {
        let pointers = strings.map { strdup($0) }
        defer { pointers.forEach { free($0) } }
        let terminated = pointers + [nil]
        return terminated.withUnsafeBufferPointer { body($0.baseAddress!) }
    }
}
