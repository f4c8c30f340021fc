import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif
import TapwireStore
import TapwireTestSupport

/// The test harness's servers do not outlive a test process that ends without stopping them.
@Suite struct ServerGuardTests {
    /// A real server in a directory of the test's own, guarded.
    private func guardedServer() throws -> (server: EmbeddedPostgres, directory: String, serverGuard: ServerGuard) {
        let directory = "/tmp/tapwire-guardtest-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        if geteuid() == 0 { _ = try Subprocess.run("/bin/chown", ["postgres:postgres", directory]) }
        let server = try EmbeddedPostgres(dataDirectory: directory + "/data", port: EmbeddedPostgres.freePort(), durable: false)
        let serverGuard = try ServerGuard.start(directory: directory, dataDirectories: [server.dataDirectory], binDirectory: server.binDirectory)
        try server.start()
        return (server, directory, serverGuard)
    }

    /// The owner's end of the guardian's pipe closes, as the kernel closes it when the owner is
    /// killed, with the server still running: the guardian stops it and removes its directory.
    @Test func aServerLeftRunningByItsOwnerIsStoppedByItsGuardian() throws {
        let (server, directory, serverGuard) = try guardedServer()
        let connection = try PostgresConnection(url: server.url())
        #expect(try connection.query("SELECT 1").scalar == "1")
        connection.close()
        let postmaster = try postmasterPID(server)

        serverGuard.release()  // returns once the guardian has exited

        #expect(!isRunning(postmaster), "the postmaster (pid \(postmaster)) still runs")
        #expect(!FileManager.default.fileExists(atPath: directory))
    }

    /// Whether the process runs: it exists and is not a zombie (an exited postmaster's parent is
    /// init, which reaps it in its own time).
    private func isRunning(_ pid: pid_t) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let close = stat.lastIndex(of: ")") else { return false }
        return stat[stat.index(after: close)...].split(separator: " ").first != "Z"
    }

    /// The first line of the server's postmaster.pid.
    private func postmasterPID(_ server: EmbeddedPostgres) throws -> pid_t {
        let text = try String(contentsOfFile: server.dataDirectory + "/postmaster.pid", encoding: .utf8)
        guard let pid = text.split(separator: "\n").first.flatMap({ pid_t($0) }) else { throw TestClientError(message: "no pid in postmaster.pid") }
        return pid
    }

    /// A directory recorded by an owner that is gone, with its server still running (its
    /// guardian killed too), is stopped and removed by the next guard's sweep; one whose owner
    /// lives is left alone.
    @Test func theSweepStopsOnlyWhatADeadOwnerLeft() throws {
        let (server, directory, serverGuard) = try guardedServer()
        defer { serverGuard.release() }
        let parent = "/tmp/tapwire-sweeptest-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: parent) }
        // The same server, seen under `parent` as a harness directory: first with this (live)
        // process as its owner, then with a process that has exited.
        let alias = parent + "/tapwire-citus-alias"
        try FileManager.default.createSymbolicLink(atPath: alias, withDestinationPath: directory)
        try FileManager.default.copyItem(atPath: directory + "/.tapwire-guard", toPath: parent + "/record")

        let postmaster = try postmasterPID(server)
        ServerGuard.sweepAbandoned(in: parent)
        #expect(isRunning(postmaster), "a live owner's server was stopped")

        let exited = try Subprocess.spawn("/bin/true", [], logPath: "/dev/null")
        #expect(exited.wait(timeout: 30) == 0)
        let record = try String(contentsOfFile: parent + "/record", encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
        let deadOwner = (["\(exited.pid) 1"] + record.dropFirst()).joined(separator: "\n")
        try deadOwner.write(toFile: directory + "/.tapwire-guard", atomically: true, encoding: .utf8)

        ServerGuard.sweepAbandoned(in: parent)
        // Any test's guard sweeps /tmp as it starts (`ServerGuard.start`), so another suite's sweep
        // may have found the dead owner first and be stopping the server while this one finds no
        // pid file left to stop: wait (at most 60 s) for the postmaster's exit, whoever stops it.
        ServerGuard.waitForExit(of: postmaster)
        #expect(!isRunning(postmaster), "a dead owner's server (pid \(postmaster)) still runs")
    }
}
