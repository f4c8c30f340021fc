import Foundation
import Synchronization
import TapwireStore

/// The previous release's `tapwire`, built from git for the mixed-fleet tests: the revision
/// TAPWIRE_PREVIOUS_REVISION names (any commit of this repository's history; by default the
/// release before this one's changes, `defaultRevision`). The tree is taken with `git archive`
/// into .build/previous/<revision>/ and built there once (`swift build --product tapwire`, a few
/// minutes); later runs reuse the binary. Pointing the tests at another previous release is
/// setting the variable.
public enum PreviousRelease {
    /// The previous release: main as it was before the Citus work (issue 37) was merged.
    public static let defaultRevision = "f2184c4"

    public static var revision: String {
        let given = ProcessInfo.processInfo.environment["TAPWIRE_PREVIOUS_REVISION"] ?? ""
        return given.isEmpty ? defaultRevision : given
    }

    private static let built = Mutex<[String: String]>([:])

    /// The built binary of `revision`, building it first if needed.
    public static func binary(revision: String = PreviousRelease.revision) throws -> String {
        try built.withLock { cache in
            if let path = cache[revision] { return path }
            let root = CitusCluster.repositoryRoot
            let resolved = try git(["-C", root, "rev-parse", "--verify", "--short=12", revision + "^{commit}"], root: root)
            let directory = root + "/.build/previous/" + resolved
            let binary = directory + "/tapwire"
            if !FileManager.default.isExecutableFile(atPath: binary) {
                let source = directory + "/src"
                try? FileManager.default.removeItem(atPath: source)
                try FileManager.default.createDirectory(atPath: source, withIntermediateDirectories: true)
                let archive = directory + "/src.tar"
                _ = try git(["-C", root, "archive", "--format=tar", "-o", archive, resolved], root: root)
                try check(Subprocess.run("/bin/tar", ["-xf", archive, "-C", source]), "tar")
                try? FileManager.default.removeItem(atPath: archive)
                let swift = ProcessInfo.processInfo.environment["SWIFT"]
                    ?? ["/opt/swift/usr/bin/swift", "/usr/bin/swift"].first { FileManager.default.isExecutableFile(atPath: $0) } ?? "swift"
                try check(Subprocess.run("/bin/sh", ["-c", "cd \"$0\" && \"$1\" build --product tapwire >build.log 2>&1 || { tail -20 build.log; exit 1; }",
                                                     source, swift]), "swift build of \(revision)")
                let product = source + "/.build/debug/tapwire"
                guard FileManager.default.isExecutableFile(atPath: product) else {
                    throw TestClientError(message: "the build of \(revision) made no \(product)")
                }
                try FileManager.default.copyItem(atPath: product, toPath: binary + ".new")
                _ = rename(binary + ".new", binary)
                // The sources and their build are not needed again: only the binary is kept.
                try? FileManager.default.removeItem(atPath: source)
            }
            cache[revision] = binary
            return binary
        }
    }

    private static func git(_ arguments: [String], root: String) throws -> String {
        let result = try Subprocess.run("/usr/bin/git", arguments)
        guard result.status == 0 else {
            throw TestClientError(message: "git \(arguments.dropFirst(2).joined(separator: " ")) failed in \(root): \(result.output) "
                                  + "(TAPWIRE_PREVIOUS_REVISION must be a commit of this repository's history; a shallow clone lacks it)")
        }
        return result.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private static func check(_ result: Subprocess.Result, _ what: String) throws {
        guard result.status == 0 else { throw TestClientError(message: "\(what) failed (\(result.status)): \(result.output)") }
    }
}
