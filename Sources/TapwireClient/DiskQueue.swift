import Foundation
import TapwireZlib
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The persistent, append-only event queue.
///
/// Layout of the directory: `seg-<16 digits>.twq` segment files, appended to in order; `head`,
/// the position of the oldest unacknowledged record plus the drop counter; `LOCK`, held with
/// flock(2) so only one process (or client) uses a directory at a time.
///
/// A record is `"TWQ1"`, the payload length (u32 LE), CRC-32 of length and payload (u32 LE), then
/// the payload: event id (16 bytes), record time (i64 LE µs), the event's JSON. A record whose
/// checksum fails at the end of the last segment is a torn write and is cut off on open; one in
/// the middle is skipped by searching for the next valid record.
///
/// Not thread-safe by itself: `TapwireClient` keeps it behind a Mutex.
final class DiskQueue {
    struct Entry {
        var sequence: UInt64
        var segment: UInt64
        var offset: Int
        var size: Int
        var eventId: TelemetryEventID
        var recordedAtMicros: Int64
    }

    static let magic: [UInt8] = Array("TWQ1".utf8)
    static let headerBytes = 12
    static let payloadPrefixBytes = 24
    /// An event's JSON may be at most 32 KiB on the collector; anything near this is a bug.
    static let maxPayloadBytes = 64 << 10

    let directory: URL
    let maxBytes: Int
    let segmentBytes: Int
    let durability: QueueDurability
    private(set) var recovery = QueueRecovery()
    private(set) var droppedCount: UInt64 = 0
    private(set) var liveBytes = 0
    private var entries: [Entry] = []
    private var firstEntry = 0
    private var nextSequence: UInt64 = 1
    private var activeSegment: UInt64 = 1
    private var activeSize = 0
    private var activeHandle: FileHandle?
    private var lockHandle: FileHandle?

    var count: Int { entries.count - firstEntry }
    var oldestRecordedAtMicros: Int64? { count > 0 ? entries[firstEntry].recordedAtMicros : nil }
    /// The id of the newest queued record: where an install id's epoch ends (`InstallIdEpochs`).
    var newestEventId: TelemetryEventID? { count > 0 ? entries[entries.count - 1].eventId : nil }

    /// How many records come before `eventId` in the queue (0: it is the oldest); nil once it left
    /// the queue (acknowledged or dropped). Linear, and asked only while an earlier epoch is queued.
    func position(of eventId: TelemetryEventID) -> Int? {
        entries[firstEntry...].firstIndex { $0.eventId == eventId }.map { $0 - firstEntry }
    }

    init(directory: URL, maxBytes: Int = 8 << 20, segmentBytes: Int = 1 << 20, durability: QueueDurability = .fsyncEveryRecord) throws(QueueError) {
        self.directory = directory
        self.maxBytes = max(maxBytes, 4096)
        self.segmentBytes = max(segmentBytes, 4096)
        self.durability = durability
        let fm = FileManager.default
        do {
            try fm.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw QueueError(.io, "cannot create the queue directory \(directory.path): \(error)")
        }
        try takeLock()
        try load()
    }

    deinit { close() }

    /// Releases the files and the lock; the queue is unusable afterwards (a test's "restart").
    func close() {
        try? activeHandle?.close()
        activeHandle = nil
        try? lockHandle?.close()
        lockHandle = nil
    }

    // MARK: Appending

    /// Appends one event; when this returns, the record is on disk per `durability`. Oldest
    /// records are dropped first when the cap would be exceeded.
    @discardableResult
    func append(eventId: TelemetryEventID, recordedAtMicros: Int64, json: [UInt8]) throws(QueueError) -> UInt64 {
        let record = Self.encodeRecord(eventId: eventId, recordedAtMicros: recordedAtMicros, json: json)
        guard record.count - Self.headerBytes <= Self.maxPayloadBytes else {
            throw QueueError(.recordTooLarge, "an event of \(json.count) bytes cannot be queued; the limit is \(Self.maxPayloadBytes - Self.payloadPrefixBytes)")
        }
        var dropped = 0
        while count > 0 && liveBytes + record.count > maxBytes {
            liveBytes -= entries[firstEntry].size
            firstEntry += 1
            dropped += 1
        }
        if dropped > 0 {
            droppedCount += UInt64(dropped)
            try persistHead()
            removeConsumedSegments()
        }
        if activeSize > 0 && activeSize + record.count > segmentBytes { try rotate() }
        guard let handle = activeHandle else { throw QueueError(.io, "the queue is closed") }
        do {
            try handle.write(contentsOf: Data(record))
            if durability == .fsyncEveryRecord { try handle.synchronize() }
        } catch {
            // Cut off whatever part reached the file, so the next append starts on a boundary.
            try? handle.truncate(atOffset: UInt64(activeSize))
            throw QueueError(.io, "cannot append to the queue: \(error)")
        }
        let sequence = nextSequence
        nextSequence += 1
        entries.append(Entry(sequence: sequence, segment: activeSegment, offset: activeSize, size: record.count,
                             eventId: eventId, recordedAtMicros: recordedAtMicros))
        activeSize += record.count
        liveBytes += record.count
        return sequence
    }

    static func encodeRecord(eventId: TelemetryEventID, recordedAtMicros: Int64, json: [UInt8]) -> [UInt8] {
        var payload = eventId.bytes
        payload.reserveCapacity(payloadPrefixBytes + json.count)
        appendLE(UInt64(bitPattern: recordedAtMicros), bytes: 8, to: &payload)
        payload.append(contentsOf: json)
        var length: [UInt8] = []
        appendLE(UInt64(payload.count), bytes: 4, to: &length)
        let crc = Zlib.crc32(payload, initial: Zlib.crc32(length))
        var record = magic + length
        appendLE(UInt64(crc), bytes: 4, to: &record)
        record.append(contentsOf: payload)
        return record
    }

    // MARK: Reading and acknowledging

    /// The oldest records, at most `maxEvents` of them and at most `maxJSONBytes` of event JSON
    /// (but always at least one, so an oversized event still reaches the retry policy).
    func peek(maxEvents: Int, maxJSONBytes: Int) throws(QueueError) -> [QueuedRecord] {
        var picked: [Entry] = []
        var jsonBytes = 0
        for entry in entries[firstEntry...] {
            guard picked.count < max(1, maxEvents) else { break }
            let size = entry.size - Self.headerBytes - Self.payloadPrefixBytes
            if !picked.isEmpty && jsonBytes + size > maxJSONBytes { break }
            picked.append(entry)
            jsonBytes += size
        }
        var out: [QueuedRecord] = []
        out.reserveCapacity(picked.count)
        var index = 0
        while index < picked.count {
            // One read per segment: the picked records of a segment are contiguous.
            let segment = picked[index].segment
            var last = index
            while last + 1 < picked.count && picked[last + 1].segment == segment { last += 1 }
            let start = picked[index].offset
            let end = picked[last].offset + picked[last].size
            let bytes = try read(segment: segment, from: start, count: end - start)
            for entry in picked[index...last] {
                let from = entry.offset - start + Self.headerBytes + Self.payloadPrefixBytes
                let to = entry.offset - start + entry.size
                guard to <= bytes.count else { throw QueueError(.io, "segment \(segment) is shorter than its index") }
                out.append(QueuedRecord(sequence: entry.sequence, eventId: entry.eventId,
                                        recordedAtMicros: entry.recordedAtMicros, json: Array(bytes[from..<to])))
            }
            index = last + 1
        }
        return out
    }

    /// Forgets every record up to and including `sequence` (sent and answered, or dropped as
    /// poison). Records dropped meanwhile by the cap are simply already gone.
    func acknowledge(through sequence: UInt64) throws(QueueError) {
        var moved = false
        while count > 0 && entries[firstEntry].sequence <= sequence {
            liveBytes -= entries[firstEntry].size
            firstEntry += 1
            moved = true
        }
        guard moved else { return }
        if firstEntry > 1024 && firstEntry * 2 > entries.count {
            entries.removeFirst(firstEntry)
            firstEntry = 0
        }
        try persistHead()
        removeConsumedSegments()
    }

    // MARK: Files

    private func segmentURL(_ n: UInt64) -> URL {
        let digits = String(n)
        return directory.appendingPathComponent("seg-" + String(repeating: "0", count: max(0, 16 - digits.count)) + digits + ".twq")
    }

    private var headURL: URL { directory.appendingPathComponent("head") }

    private func takeLock() throws(QueueError) {
        let url = directory.appendingPathComponent("LOCK")
        // Close-on-exec from the open itself: a process started by another thread between an
        // open and a later fcntl would inherit the descriptor and keep the lock after close().
        let descriptor = open(url.path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw QueueError(.io, "cannot open \(url.path) (errno \(errno))")
        }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        guard flock(handle.fileDescriptor, LOCK_EX | LOCK_NB) == 0 else {
            try? handle.close()
            throw QueueError(.locked, "another process or client already uses the queue in \(directory.path); give each process (app, extension) its own directory")
        }
        lockHandle = handle
    }

    private func load() throws(QueueError) {
        let fm = FileManager.default
        let names = (try? fm.contentsOfDirectory(atPath: directory.path)) ?? []
        let segments = names.compactMap { name -> UInt64? in
            guard name.hasPrefix("seg-"), name.hasSuffix(".twq") else { return nil }
            return UInt64(name.dropFirst(4).dropLast(4))
        }.sorted()

        var head: (segment: UInt64, offset: Int)
        if let saved = readHead() {
            head = (saved.segment, saved.offset)
            droppedCount = saved.dropped
        } else {
            head = (segments.first ?? 1, 0)
            recovery.headReset = fm.fileExists(atPath: headURL.path) || !segments.isEmpty
        }

        for segment in segments where segment < head.segment { try? fm.removeItem(at: segmentURL(segment)) }
        let live = segments.filter { $0 >= head.segment }
        for (i, segment) in live.enumerated() {
            let url = segmentURL(segment)
            let bytes: [UInt8]
            do { bytes = [UInt8](try Data(contentsOf: url)) } catch {
                throw QueueError(.io, "cannot read \(url.path): \(error)")
            }
            let start = segment == head.segment ? min(head.offset, bytes.count) : 0
            let scan = Self.scan(bytes, from: start)
            recovery.corruptRegions += scan.corruptRegions
            for record in scan.records {
                entries.append(Entry(sequence: nextSequence, segment: segment, offset: record.offset, size: record.size,
                                     eventId: record.eventId, recordedAtMicros: record.recordedAtMicros))
                nextSequence += 1
                liveBytes += record.size
            }
            let isLast = i == live.count - 1
            if isLast {
                if scan.validEnd < bytes.count {
                    recovery.tornTailBytes += bytes.count - scan.validEnd
                    guard let handle = FileHandle(forUpdatingAtPath: url.path) else { throw QueueError(.io, "cannot open \(url.path)") }
                    do {
                        try handle.truncate(atOffset: UInt64(scan.validEnd))
                        if durability == .fsyncEveryRecord { try handle.synchronize() }
                        try handle.close()
                    } catch {
                        throw QueueError(.io, "cannot cut the torn tail of \(url.path): \(error)")
                    }
                }
                activeSegment = segment
                activeSize = scan.validEnd
            }
        }
        if live.isEmpty {
            activeSegment = max(head.segment, (segments.last ?? 0) + 1)
            activeSize = 0
            guard fm.createFile(atPath: segmentURL(activeSegment).path, contents: nil) else {
                throw QueueError(.io, "cannot create \(segmentURL(activeSegment).path)")
            }
            syncDirectory()
        }
        try openActive()
        // A new queue writes its head at once, so a missing head later means damage, not youth.
        if !fm.fileExists(atPath: headURL.path) || recovery.headReset { try persistHead() }
    }

    private func openActive() throws(QueueError) {
        let url = segmentURL(activeSegment)
        guard let handle = FileHandle(forWritingAtPath: url.path) else { throw QueueError(.io, "cannot open \(url.path) for writing") }
        do { _ = try handle.seekToEnd() } catch { throw QueueError(.io, "cannot seek in \(url.path): \(error)") }
        activeHandle = handle
    }

    private func rotate() throws(QueueError) {
        try? activeHandle?.close()
        activeHandle = nil
        activeSegment += 1
        activeSize = 0
        guard FileManager.default.createFile(atPath: segmentURL(activeSegment).path, contents: nil) else {
            throw QueueError(.io, "cannot create \(segmentURL(activeSegment).path)")
        }
        // The new file's name must be durable before records in it are reported durable.
        syncDirectory()
        try openActive()
    }

    private func read(segment: UInt64, from offset: Int, count: Int) throws(QueueError) -> [UInt8] {
        let url = segmentURL(segment)
        guard let handle = FileHandle(forReadingAtPath: url.path) else { throw QueueError(.io, "cannot open \(url.path)") }
        defer { try? handle.close() }
        do {
            try handle.seek(toOffset: UInt64(offset))
            return [UInt8](try handle.read(upToCount: count) ?? Data())
        } catch {
            throw QueueError(.io, "cannot read \(url.path): \(error)")
        }
    }

    private func removeConsumedSegments() {
        let headSegment = count > 0 ? entries[firstEntry].segment : activeSegment
        let fm = FileManager.default
        let names = (try? fm.contentsOfDirectory(atPath: directory.path)) ?? []
        for name in names where name.hasPrefix("seg-") && name.hasSuffix(".twq") {
            if let n = UInt64(name.dropFirst(4).dropLast(4)), n < headSegment {
                try? fm.removeItem(at: directory.appendingPathComponent(name))
            }
        }
    }

    /// head: segment (u64 LE), offset (u64 LE), dropped (u64 LE), CRC-32 of the 24 bytes (u32 LE).
    /// Replaced atomically (`DurableFile.replace`).
    private func persistHead() throws(QueueError) {
        let segment = count > 0 ? entries[firstEntry].segment : activeSegment
        let offset = count > 0 ? entries[firstEntry].offset : activeSize
        var bytes: [UInt8] = []
        Self.appendLE(segment, bytes: 8, to: &bytes)
        Self.appendLE(UInt64(offset), bytes: 8, to: &bytes)
        Self.appendLE(droppedCount, bytes: 8, to: &bytes)
        Self.appendLE(UInt64(Zlib.crc32(bytes)), bytes: 4, to: &bytes)
        try DurableFile.replace(headURL, with: bytes, durability: durability)
    }

    private func readHead() -> (segment: UInt64, offset: Int, dropped: UInt64)? {
        guard let data = try? Data(contentsOf: headURL), data.count == 28 else { return nil }
        let bytes = [UInt8](data)
        guard Zlib.crc32(Array(bytes[0..<24])) == UInt32(Self.readLE(bytes, 24, 4)) else { return nil }
        return (Self.readLE(bytes, 0, 8), Int(Self.readLE(bytes, 8, 8)), Self.readLE(bytes, 16, 8))
    }

    private func syncDirectory() { DurableFile.syncDirectory(of: headURL, durability: durability) }

    // MARK: Record scanning (pure)

    struct ScannedRecord: Equatable {
        var offset: Int
        var size: Int
        var eventId: TelemetryEventID
        var recordedAtMicros: Int64
    }

    struct ScanResult: Equatable {
        var records: [ScannedRecord] = []
        /// End of the last valid record: bytes after it are a torn tail.
        var validEnd: Int
        var corruptRegions = 0
    }

    static func scan(_ bytes: [UInt8], from start: Int) -> ScanResult {
        var result = ScanResult(validEnd: start)
        var p = start
        while p < bytes.count {
            if let record = validRecord(bytes, at: p) {
                result.records.append(record)
                p += record.size
                result.validEnd = p
                continue
            }
            // Damage at p: a valid record further on means a corrupt region; none means a torn tail.
            var q = p + 1
            var found: Int?
            while q + headerBytes <= bytes.count {
                if bytes[q] == magic[0] && bytes[q + 1] == magic[1] && bytes[q + 2] == magic[2] && bytes[q + 3] == magic[3],
                   validRecord(bytes, at: q) != nil {
                    found = q
                    break
                }
                q += 1
            }
            guard let next = found else { break }
            result.corruptRegions += 1
            p = next
        }
        return result
    }

    static func validRecord(_ bytes: [UInt8], at p: Int) -> ScannedRecord? {
        guard bytes.count - p >= headerBytes, Array(bytes[p..<p + 4]) == magic else { return nil }
        let length = Int(readLE(bytes, p + 4, 4))
        guard length >= payloadPrefixBytes, length <= maxPayloadBytes, p + headerBytes + length <= bytes.count else { return nil }
        let stored = UInt32(readLE(bytes, p + 8, 4))
        let crc = Zlib.crc32(Array(bytes[p + headerBytes..<p + headerBytes + length]), initial: Zlib.crc32(Array(bytes[p + 4..<p + 8])))
        guard crc == stored, let id = TelemetryEventID(bytes: bytes[p + headerBytes..<p + headerBytes + 16]) else { return nil }
        return ScannedRecord(offset: p, size: headerBytes + length, eventId: id,
                             recordedAtMicros: Int64(bitPattern: readLE(bytes, p + headerBytes + 16, 8)))
    }

    static func appendLE(_ value: UInt64, bytes: Int, to out: inout [UInt8]) {
        for i in 0..<bytes { out.append(UInt8(truncatingIfNeeded: value >> UInt64(i * 8))) }
    }

    static func readLE(_ bytes: [UInt8], _ at: Int, _ count: Int) -> UInt64 {
        var v: UInt64 = 0
        for i in (0..<count).reversed() { v = v << 8 | UInt64(bytes[at + i]) }
        return v
    }
}
