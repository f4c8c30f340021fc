import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The small files kept beside the queue (its head, the install id, the remembered tap), written
/// so that a crash at any moment leaves the old content or the new one, never a mix: the bytes go
/// to a temporary file, which is synced (per `QueueDurability`) and then renamed or linked into place.
enum DurableFile {
    /// Replaces `url`'s content.
    static func replace(_ url: URL, with bytes: [UInt8], durability: QueueDurability) throws(QueueError) {
        let temp = try writeTemporary(beside: url, bytes, durability: durability)
        guard rename(temp.path, url.path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temp.path)
            throw QueueError(.io, "cannot rename \(temp.path) to \(url.path): \(reason)")
        }
        syncDirectory(of: url, durability: durability)
    }

    /// Creates `url` with `bytes` unless it exists: true when this call created it. Two processes
    /// creating it at once (an app and its extension sharing a directory) agree on one content.
    static func create(_ url: URL, with bytes: [UInt8], durability: QueueDurability) throws(QueueError) -> Bool {
        let temp = try writeTemporary(beside: url, bytes, durability: durability)
        defer { unlink(temp.path) }
        // link(2) fails with EEXIST instead of replacing, unlike rename(2).
        if link(temp.path, url.path) == 0 {
            syncDirectory(of: url, durability: durability)
            return true
        }
        if errno == EEXIST { return false }
        throw QueueError(.io, "cannot create \(url.path): \(String(cString: strerror(errno)))")
    }

    static func remove(_ url: URL, durability: QueueDurability) throws(QueueError) {
        guard unlink(url.path) == 0 || errno == ENOENT else {
            throw QueueError(.io, "cannot remove \(url.path): \(String(cString: strerror(errno)))")
        }
        syncDirectory(of: url, durability: durability)
    }

    static func read(_ url: URL) -> [UInt8]? { (try? Data(contentsOf: url)).map { [UInt8]($0) } }

    private static func writeTemporary(beside url: URL, _ bytes: [UInt8], durability: QueueDurability) throws(QueueError) -> URL {
        // A name of its own for each write: two clients or processes sharing the directory never
        // write the same temporary file.
        let temp = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).\(UInt64.random(in: 0...UInt64.max)).tmp")
        guard FileManager.default.createFile(atPath: temp.path, contents: Data(bytes)) else {
            throw QueueError(.io, "cannot write \(temp.path)")
        }
        if durability == .fsyncEveryRecord, let handle = FileHandle(forUpdatingAtPath: temp.path) {
            try? handle.synchronize()
            try? handle.close()
        }
        return temp
    }

    static func syncDirectory(of url: URL, durability: QueueDurability) {
        guard durability == .fsyncEveryRecord,
              let handle = FileHandle(forReadingAtPath: url.deletingLastPathComponent().path) else { return }
        try? handle.synchronize()
        try? handle.close()
    }
}
