import Foundation
import TapwireStore

/// The built `tapwire` executable, for end-to-end tests: TAPWIRE_BINARY (set by `make test`),
/// or .build/debug/tapwire in this checkout.
public enum TapwireBinary {
    public static func path(file: String = #filePath) throws -> String {
        if let env = ProcessInfo.processInfo.environment["TAPWIRE_BINARY"], FileManager.default.isExecutableFile(atPath: env) { return env }
        var dir = URL(fileURLWithPath: file).deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = dir.appendingPathComponent(".build/debug/tapwire").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            dir = dir.deletingLastPathComponent()
        }
        throw TestClientError(message: "the tapwire binary is not built; run `swift build` (or set TAPWIRE_BINARY)")
    }

    /// Runs `tapwire ARGS…` to completion (`binary`: another build of it, such as the previous
    /// release's).
    public static func run(_ arguments: [String], environment: [String: String] = [:], binary: String? = nil) throws -> Subprocess.Result {
        let log = NSTemporaryDirectory() + "tapwire-run-\(UInt32.random(in: 0...UInt32.max)).log"
        defer { try? FileManager.default.removeItem(atPath: log) }
        let child = try Subprocess.spawn(try binary ?? path(), arguments, logPath: log, environment: environment)
        // A guard against a hung command, not a speed check: `tapwire demo` took over 120 s of a
        // debug build at a load average of 15, so the bound is generous.
        let status = child.wait(timeout: 600) ?? -1
        let output = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        return Subprocess.Result(status: status, output: output)
    }

    /// Starts `tapwire serve` on `port` (a free one when nil: a restart passes the old one) and
    /// waits until /healthz answers.
    public static func serve(databaseURL: String, port: Int? = nil, extraArguments: [String] = [],
                             environment: [String: String] = [:], binary: String? = nil) throws -> ServeProcess {
        let port = port ?? EmbeddedPostgres.freePort()
        let log = NSTemporaryDirectory() + "tapwire-serve-\(port).log"
        let child = try Subprocess.spawn(try binary ?? path(), ["serve", "--database-url", databaseURL, "--port", String(port)] + extraArguments,
                                         logPath: log, environment: environment)
        let process = ServeProcess(child: child, port: port, logPath: log)
        let up = eventually(timeout: 30) { (try? HTTPTestClient(port: port).get("/healthz").status) == 200 }
        guard up else {
            child.signal(SIGKILL)
            _ = child.wait(timeout: 5)
            throw TestClientError(message: "tapwire serve did not come up: \(process.log)")
        }
        return process
    }
}

public struct ServeProcess: Sendable {
    public let child: Subprocess.Child
    public let port: Int
    public let logPath: String

    public var client: HTTPTestClient { HTTPTestClient(port: port) }
    public var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    /// SIGINT, as Ctrl-C sends it; returns the exit status (nil if it did not exit in time).
    public func interrupt(timeout: Double = 20) -> Int32? {
        child.signal(SIGINT)
        let status = child.wait(timeout: timeout)
        if status == nil {
            child.signal(SIGKILL)
            _ = child.wait(timeout: 5)
        }
        return status
    }
}
