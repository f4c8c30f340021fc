import Foundation
import Testing
import TapwireCore
import TapwireFuzz
import TapwireServer

/// Every input the fuzzers found that broke an invariant, replayed through the fuzz target, plus
/// the seed corpus and a short seeded run (the long runs are `make fuzz`).
@Suite struct FuzzRegressionTests {
    static let gzip = UInt8(FuzzInput.Wire.gzipOfPayload.rawValue << 1)

    @Test func seedsPass() {
        for input in FuzzSeeds.inputs {
            let finding = BodyFuzzTarget.check(input)
            #expect(finding == nil, "\(finding.map(String.init(describing:)) ?? "")")
        }
    }

    /// Found by the mutator: 130,000 distinct keys in one object took minutes to parse (a linear
    /// duplicate-key scan per key), blocking an HTTP thread per request.
    @Test func manyKeysParseInLinearTime() throws {
        let body = FuzzShapes.manyKeys(count: 600_000)
        #expect(body.count > 6_000_000 && body.count < IngestLimits().maxDecompressedBytes)
        // The thread's CPU time, not the wall clock: a loaded machine must not fail a linear parse.
        let (value, seconds) = try ThreadCPUClock.seconds { try JSONParser().parse(body) }
        #expect(value.objectValue?.members.count == 600_001)
        #expect(value.objectValue?.duplicateKey == nil)
        #expect(seconds < 20)
        // A repeat far down the list is still found.
        let repeated = Array(body.dropLast()) + Array(#","k599999":1}"#.utf8)
        #expect(try JSONParser().parse(repeated).objectValue?.duplicateKey == "k599999")
        #expect(BodyFuzzTarget.check([Self.gzip] + FuzzShapes.manyKeys(count: 200_000)) == nil)
    }

    /// Found by the mutator: sentAt in year 9999 with deliveredAt in year 0 corrects deliveredAt to
    /// about 8000 BC, which PostgreSQL cannot store: the COPY failed and the request got 500 forever.
    @Test func deliveredAtBeforeAnyStorableDateIsRejectedPerEvent() throws {
        let payload = FuzzSeeds.payloads.first { $0.name == "deliveredAt year 0" }!.text
        let outcome = IngestBodyPipeline.batch(payload, contentEncoding: nil, receivedAt: BodyFuzzTarget.receivedAt)
        guard case .batch(let batch) = outcome else { Issue.record("refused: \(outcome)"); return }
        #expect(batch.events.isEmpty)
        #expect(batch.rejections.map(\.code) == [.invalidField])
        #expect(batch.rejections.first?.reason.contains("deliveredAt") == true)
        #expect(BodyFuzzTarget.check([0] + payload) == nil)
    }

    /// Found by the mutator: a repeated key of 12,000 bytes was echoed whole in every rejection.
    @Test func errorsDoNotEchoLongKeys() {
        let payload = FuzzShapes.duplicateLongKey(bytes: 12_000, events: 3)
        guard case .batch(let batch) = IngestBodyPipeline.batch(payload, contentEncoding: nil, receivedAt: BodyFuzzTarget.receivedAt) else {
            Issue.record("the batch was refused")
            return
        }
        #expect(batch.rejections.count == 3)
        #expect(batch.rejections.allSatisfy { $0.code == .duplicateKey && $0.reason.utf8.count < 200 })
        let top = Array(#"{"events":[],"\#(String(repeating: "x", count: 5000))":1,"\#(String(repeating: "x", count: 5000))":2}"#.utf8)
        #expect(IngestBodyPipeline.batch(top, contentEncoding: nil, receivedAt: BodyFuzzTarget.receivedAt).error.map { $0.message.utf8.count < 200 } == true)
    }

    /// Found by libFuzzer: a number literal too large for a double (777…7, 300 digits) parsed as
    /// infinity, which the writer prints as null. The field is rejected per event; the round trip
    /// invariant follows the writer's documented rule.
    @Test func hugeNumberLiteralsAreRejectedPerEvent() {
        let payload = FuzzShapes.longNumber(digits: 400)
        guard case .batch(let batch) = IngestBodyPipeline.batch(payload, contentEncoding: nil, receivedAt: BodyFuzzTarget.receivedAt) else {
            Issue.record("the batch was refused")
            return
        }
        #expect(batch.rejections.map(\.code) == [.invalidField])
        #expect(BodyFuzzTarget.check([Self.gzip] + payload) == nil)
        // Two million digits are decided quickly too.
        let (finding, seconds) = ThreadCPUClock.seconds { BodyFuzzTarget.check([Self.gzip] + FuzzShapes.longNumber(digits: 2_000_000)) }
        #expect(finding == nil)
        #expect(seconds < 10)
    }

    /// The time budget counts the thread's work, not its waits: a sleep costs nothing, a loop does.
    @Test func theTimeBudgetCountsCPUNotWaiting() {
        #expect(ThreadCPUClock.seconds { Thread.sleep(forTimeInterval: 0.5) }.seconds < 0.25)
        let (sum, busy) = ThreadCPUClock.seconds { (0..<2_000_000).reduce(UInt64(0)) { $0 &+ UInt64($1) &* 2_654_435_761 } }
        #expect(sum != 0 && busy > 0)
    }

    @Test func bigShapesHoldEveryInvariant() {
        let inputs: [[UInt8]] = [
            [Self.gzip] + FuzzShapes.longString(bytes: 10 << 20, inField: "category"),
            [Self.gzip] + FuzzShapes.longString(bytes: 7 << 20, inField: "sdk"),
            [Self.gzip] + FuzzShapes.nesting(depth: 100_000),
            [UInt8(FuzzInput.Wire.payloadAsGzip.rawValue << 1)] + FuzzShapes.gzipBomb(megabytes: 64),
            [Self.gzip] + FuzzShapes.manyEvents(count: 2001),
            [Self.gzip | 1] + FuzzShapes.manyCategories(count: 600),
        ]
        for input in inputs {
            let finding = BodyFuzzTarget.check(input)
            #expect(finding == nil, "\(finding.map(String.init(describing:)) ?? "")")
        }
    }

    /// Files saved by `make fuzz` (libFuzzer crash-… files or mutator findings) once fixed.
    @Test func savedRegressionInputsPass() throws {
        let dir = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fuzz/regressions").path
        let names = (try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []
        for name in names.sorted() where !name.hasPrefix(".") && !name.hasSuffix(".md") {
            let data = try #require(FileManager.default.contents(atPath: dir + "/" + name))
            let finding = BodyFuzzTarget.check([UInt8](data))
            #expect(finding == nil, "\(name): \(finding.map(String.init(describing:)) ?? "")")
        }
    }

    /// A bounded seeded run on every `swift test`, so an invariant broken by a change shows up
    /// without `make fuzz`.
    @Test func shortSeededRunFindsNothing() {
        let summary = FuzzRunner(seed: 20261201, seconds: 15).run()
        #expect(summary.executions > 100)
        #expect(summary.findings.isEmpty, "\(summary.findings.map { "\($0.finding)" })")
    }
}
