import Foundation
import Testing
@testable import TapwireClient

@Suite struct DiskQueueTests {
    func id(_ n: Int) -> TelemetryEventID { TelemetryEventID(high: 0x0193_0000_0000_7000 | UInt64(n), low: 0x8000_0000_0000_0000 | UInt64(n)) }
    func json(_ n: Int, pad: Int = 0) -> [UInt8] { Array(#"{"eventId":"\#(id(n))","n":\#(n),"p":"\#(String(repeating: "x", count: pad))"}"#.utf8) }

    func segments(_ dir: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []).filter { $0.hasPrefix("seg-") }.sorted()
    }

    @Test func appendPeekAcknowledgeAndReopen() throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        var queue: DiskQueue? = try DiskQueue(directory: dir)
        for n in 0..<10 { try queue!.append(eventId: id(n), recordedAtMicros: Int64(n), json: json(n)) }
        let first = try queue!.peek(maxEvents: 4, maxJSONBytes: 1 << 20)
        #expect(first.map(\.eventId) == (0..<4).map(id))
        #expect(first.map(\.json) == (0..<4).map { json($0) })
        #expect(first.map(\.recordedAtMicros) == [0, 1, 2, 3])
        try queue!.acknowledge(through: first[3].sequence)
        #expect(queue!.count == 6)
        queue!.close()
        queue = nil

        let reopened = try DiskQueue(directory: dir)
        #expect(reopened.count == 6)
        #expect(reopened.recovery == QueueRecovery())
        #expect(try reopened.peek(maxEvents: 100, maxJSONBytes: 1 << 20).map(\.eventId) == (4..<10).map(id))
    }

    @Test func peekRespectsTheByteLimitButAlwaysReturnsOne() throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let queue = try DiskQueue(directory: dir)
        for n in 0..<5 { try queue.append(eventId: id(n), recordedAtMicros: 0, json: json(n, pad: 1000)) }
        let size = json(0, pad: 1000).count
        #expect(try queue.peek(maxEvents: 100, maxJSONBytes: size * 2).count == 2)
        #expect(try queue.peek(maxEvents: 100, maxJSONBytes: 10).count == 1)
    }

    @Test func tornTailIsDroppedWithoutAnError() throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        do {
            let queue = try DiskQueue(directory: dir)
            for n in 0..<5 { try queue.append(eventId: id(n), recordedAtMicros: 0, json: json(n)) }
            queue.close()
        }
        // A kill in the middle of write(2): the first 20 bytes of a sixth record reach the file.
        let segment = dir.appendingPathComponent(segments(dir).last!)
        let intact = try Data(contentsOf: segment)
        let sixth = DiskQueue.encodeRecord(eventId: id(5), recordedAtMicros: 0, json: json(5))
        try (intact + Data(sixth.prefix(20))).write(to: segment)

        let queue = try DiskQueue(directory: dir)
        #expect(queue.count == 5)
        #expect(queue.recovery.tornTailBytes == 20)
        #expect(queue.recovery.corruptRegions == 0)
        #expect(try Data(contentsOf: segment) == intact)  // cut back to the last whole record
        // Appending after the repair produces a clean file that reads back completely.
        try queue.append(eventId: id(6), recordedAtMicros: 0, json: json(6))
        queue.close()
        let again = try DiskQueue(directory: dir)
        #expect(again.recovery == QueueRecovery())
        #expect(try again.peek(maxEvents: 100, maxJSONBytes: 1 << 20).map(\.eventId) == [0, 1, 2, 3, 4, 6].map(id))
    }

    @Test func tornTailWithWholeLengthButBadChecksum() throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        do {
            let queue = try DiskQueue(directory: dir)
            for n in 0..<3 { try queue.append(eventId: id(n), recordedAtMicros: 0, json: json(n)) }
        }
        // The last record's bytes all arrived but some of its page did not (zeros).
        let segment = dir.appendingPathComponent(segments(dir).last!)
        var bytes = [UInt8](try Data(contentsOf: segment))
        for i in (bytes.count - 10)..<bytes.count { bytes[i] = 0 }
        try Data(bytes).write(to: segment)
        let queue = try DiskQueue(directory: dir)
        #expect(try queue.peek(maxEvents: 100, maxJSONBytes: 1 << 20).map(\.eventId) == [0, 1].map(id))
        #expect(queue.recovery.tornTailBytes > 0)
    }

    @Test func corruptionInTheMiddleSkipsOnlyTheDamagedRecord() throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        do {
            let queue = try DiskQueue(directory: dir)
            for n in 0..<6 { try queue.append(eventId: id(n), recordedAtMicros: 0, json: json(n)) }
        }
        let segment = dir.appendingPathComponent(segments(dir).last!)
        var bytes = [UInt8](try Data(contentsOf: segment))
        let recordSize = DiskQueue.encodeRecord(eventId: id(0), recordedAtMicros: 0, json: json(0)).count
        bytes[recordSize * 2 + 30] ^= 0x5A  // inside the third record's payload
        try Data(bytes).write(to: segment)
        let queue = try DiskQueue(directory: dir)
        #expect(try queue.peek(maxEvents: 100, maxJSONBytes: 1 << 20).map(\.eventId) == [0, 1, 3, 4, 5].map(id))
        #expect(queue.recovery.corruptRegions == 1)
        #expect(queue.recovery.tornTailBytes == 0)
    }

    @Test func sizeCapDropsTheOldestAndCountsThem() throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // Every record here is the same size (two-digit n).
        let record = DiskQueue.encodeRecord(eventId: id(10), recordedAtMicros: 0, json: json(10, pad: 500)).count
        var queue: DiskQueue? = try DiskQueue(directory: dir, maxBytes: record * 10, segmentBytes: record * 3)
        for n in 10..<35 { try queue!.append(eventId: id(n), recordedAtMicros: 0, json: json(n, pad: 500)) }
        #expect(queue!.count == 10)
        #expect(queue!.droppedCount == 15)
        #expect(queue!.liveBytes <= record * 10)
        #expect(try queue!.peek(maxEvents: 100, maxJSONBytes: 1 << 20).map(\.eventId) == (25..<35).map(id))
        // Segments holding only dropped records are deleted.
        #expect(segments(dir).count <= 5)
        queue!.close()
        queue = nil
        let reopened = try DiskQueue(directory: dir, maxBytes: record * 10, segmentBytes: record * 3)
        #expect(reopened.droppedCount == 15)
        #expect(reopened.count == 10)
    }

    @Test func segmentsRotateAndAcknowledgedOnesAreDeleted() throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let queue = try DiskQueue(directory: dir, segmentBytes: 4096)
        for n in 0..<40 { try queue.append(eventId: id(n), recordedAtMicros: 0, json: json(n, pad: 400)) }
        #expect(segments(dir).count >= 4)
        let all = try queue.peek(maxEvents: 100, maxJSONBytes: 1 << 22)
        #expect(all.map(\.eventId) == (0..<40).map(id))  // reads across segments
        try queue.acknowledge(through: all[29].sequence)
        #expect(segments(dir).count <= 2)
        try queue.acknowledge(through: all[39].sequence)
        #expect(queue.count == 0)
        #expect(segments(dir).count == 1)
        queue.close()
        #expect(try DiskQueue(directory: dir).count == 0)
    }

    @Test func oneUserPerDirectory() throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let first = try DiskQueue(directory: dir)
        do {
            _ = try DiskQueue(directory: dir)
            Issue.record("a second queue on the same directory must be refused")
        } catch {
            #expect(error.code == .locked)
        }
        first.close()
        #expect(try DiskQueue(directory: dir).count == 0)
    }

    @Test func damagedHeadRereadsFromTheOldestSegment() throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        do {
            let queue = try DiskQueue(directory: dir)
            for n in 0..<5 { try queue.append(eventId: id(n), recordedAtMicros: 0, json: json(n)) }
            try queue.acknowledge(through: try queue.peek(maxEvents: 2, maxJSONBytes: 1 << 20)[1].sequence)
        }
        try Data([1, 2, 3]).write(to: dir.appendingPathComponent("head"))
        let queue = try DiskQueue(directory: dir)
        // At worst events are sent again; the collector deduplicates them by id. None is lost.
        #expect(queue.recovery.headReset)
        #expect(queue.count == 5)
    }

    @Test func refusesAnEventLargerThanTheRecordLimit() throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let queue = try DiskQueue(directory: dir)
        #expect(throws: QueueError.self) { try queue.append(eventId: id(0), recordedAtMicros: 0, json: json(0, pad: 70_000)) }
        #expect(queue.count == 0)
        try queue.append(eventId: id(1), recordedAtMicros: 0, json: json(1))
        #expect(queue.count == 1)
    }

    @Test func scanIsPureAndFindsBoundaries() {
        var bytes: [UInt8] = []
        for n in 0..<3 { bytes += DiskQueue.encodeRecord(eventId: id(n), recordedAtMicros: Int64(n * 10), json: json(n)) }
        let full = DiskQueue.scan(bytes, from: 0)
        #expect(full.records.map(\.eventId) == [0, 1, 2].map(id))
        #expect(full.records.map(\.recordedAtMicros) == [0, 10, 20])
        #expect(full.validEnd == bytes.count)
        for cut in [1, 11, 12, 30, bytes.count / 3 * 2] {
            let torn = DiskQueue.scan(Array(bytes.dropLast(cut)), from: 0)
            #expect(torn.records.count == (cut <= bytes.count / 3 ? 2 : 1), "cut \(cut)")
            #expect(torn.corruptRegions == 0)
        }
        #expect(DiskQueue.scan([], from: 0).records.isEmpty)
        #expect(DiskQueue.scan(Array(repeating: 0, count: 100), from: 0).validEnd == 0)
    }
}
