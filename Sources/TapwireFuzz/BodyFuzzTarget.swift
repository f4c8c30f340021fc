import Foundation
import TapwireCore
import TapwireServer
import TapwireZlib

/// The properties every body must satisfy, whatever its bytes. A crash or a trap is a finding
/// too (libFuzzer and the mutator's subprocess mode report those).
public enum BodyFuzzTarget {
    /// The receive time of every fuzzed request, fixed so an input always decodes the same way.
    public static let receivedAt = Timestamp(iso8601: "2026-12-01T10:00:05.120Z")!
    public static let limits = IngestLimits()

    /// PostgreSQL timestamptz range in Unix microseconds (4714-11-24 BC to 294276 AD, capped to Int64).
    static let postgresMinMicroseconds: Int64 = -210_866_803_200_000_000
    /// Whole-request errors a hostile body may get. Anything else (5xx, 401, …) is a finding.
    static let allowedErrors: Set<APIErrorCode> = [
        .malformedJSON, .invalidUTF8, .jsonTooDeep, .invalidBatch, .invalidManifest, .invalidCompression,
        .payloadTooLarge, .decompressedTooLarge, .tooManyEvents, .unsupportedEncoding,
    ]
    /// Error messages and rejection reasons stay short whatever the input (they may quote it).
    public static let maxMessageBytes = 400
    /// One input of at most 1 MiB (the wire limit) must be decided within this much of the
    /// thread's CPU time. The quadratic decodes found took minutes; a linear one of 1 MiB takes
    /// well under a second in a release build, and up to about 3 s in a debug build (200,000 keys:
    /// 2.7 s), which the tests run, so a debug build gets five times the budget.
    #if DEBUG
    public static let maxSecondsPerInput = 15.0
    #else
    public static let maxSecondsPerInput = 3.0
    #endif

    /// Checks one input; nil when every invariant holds.
    public static func check(_ data: [UInt8]) -> FuzzFinding? {
        let input = FuzzInput(bytes: data)
        let (wire, encoding) = input.wireBody()
        let (whole, elapsed) = ThreadCPUClock.seconds { decode(input.target, wire, encoding, chunks: []) }
        if elapsed > maxSecondsPerInput, wire.count <= limits.maxBodyBytes {
            return FuzzFinding(invariant: "too slow", detail: String(format: "%.1f s of CPU for a %d-byte body", elapsed, wire.count))
        }
        if !input.chunkSizes.isEmpty {
            let pieces = decode(input.target, wire, encoding, chunks: input.chunkSizes)
            if !sameOutcome(whole, pieces) {
                return FuzzFinding(invariant: "chunking changed the result",
                                   detail: "whole: \(summary(whole)); in reads of \(input.chunkSizes): \(summary(pieces))")
            }
        }
        switch whole {
        case .refused(let error):
            if !allowedErrors.contains(error.code) {
                return FuzzFinding(invariant: "unexpected error code", detail: "\(error.code.rawValue) (\(error.code.status)): \(error.message)")
            }
            if error.message.utf8.count > maxMessageBytes {
                return FuzzFinding(invariant: "unbounded error message", detail: "\(error.code.rawValue): \(error.message.utf8.count) bytes")
            }
            return nil
        case .batch(let batch):
            guard case .success(let body) = IngestBodyPipeline.inflate(wire, contentEncoding: encoding, limits: limits) else {
                return FuzzFinding(invariant: "inflate disagrees", detail: "the batch decoded but the body does not inflate on its own")
            }
            if body.count > limits.maxDecompressedBytes {
                return FuzzFinding(invariant: "decompression cap", detail: "\(body.count) bytes decoded")
            }
            return checkBatch(batch, body: body) ?? checkJSONRoundTrip(body)
        case .manifest(let manifest):
            return checkManifest(manifest)
        }
    }

    static func decode(_ target: FuzzInput.Target, _ wire: [UInt8], _ encoding: String?, chunks: [Int]) -> IngestBodyPipeline.Outcome {
        switch target {
        case .batch: return IngestBodyPipeline.batch(wire, contentEncoding: encoding, chunkSizes: chunks, limits: limits, receivedAt: receivedAt)
        case .manifest: return IngestBodyPipeline.manifest(wire, contentEncoding: encoding, chunkSizes: chunks, limits: limits)
        }
    }

    /// Equal results, or the same error code (messages may name a byte offset).
    static func sameOutcome(_ a: IngestBodyPipeline.Outcome, _ b: IngestBodyPipeline.Outcome) -> Bool {
        switch (a, b) {
        case (.refused(let x), .refused(let y)): return x.code == y.code
        default: return a == b
        }
    }

    static func summary(_ outcome: IngestBodyPipeline.Outcome) -> String {
        switch outcome {
        case .refused(let e): return "refused \(e.code.rawValue)"
        case .batch(let b): return "batch of \(b.events.count) events, \(b.rejections.count) rejected"
        case .manifest(let m): return "manifest of \(m.categories.count) categories"
        }
    }

    /// Every accepted event obeys the rules the database and the reports rely on, and every
    /// posted element is accounted for exactly once.
    static func checkBatch(_ batch: DecodedBatch, body: [UInt8]) -> FuzzFinding? {
        func finding(_ what: String) -> FuzzFinding { FuzzFinding(invariant: "batch rule", detail: what) }
        guard let root = try? JSONParser().parse(body), let elements = root["events"]?.arrayValue else {
            return finding("a batch was accepted from a body whose events cannot be read")
        }
        if batch.events.count + batch.rejections.count != elements.count {
            return finding("\(elements.count) posted, \(batch.events.count) accepted + \(batch.rejections.count) rejected")
        }
        if batch.indices.count != batch.events.count { return finding("indices and events differ in count") }
        let accepted = Set(batch.indices), rejected = Set(batch.rejections.map(\.index))
        if accepted.count != batch.indices.count || rejected.count != batch.rejections.count || !accepted.isDisjoint(with: rejected)
            || !(accepted.union(rejected)).allSatisfy({ (0..<elements.count).contains($0) }) {
            return finding("an event index is missing, repeated or out of range")
        }
        for rejection in batch.rejections {
            if rejection.reason.isEmpty || rejection.reason.utf8.count > maxMessageBytes {
                return FuzzFinding(invariant: "unbounded error message", detail: "rejection reason of \(rejection.reason.utf8.count) bytes (\(rejection.code.rawValue))")
            }
            if let id = rejection.eventId, id.utf8.count > 3 * 65 + 3 { return finding("echoed eventId of \(id.utf8.count) bytes") }
        }
        let context = batch.context
        for (name, value, max) in [("appVersion", context.appVersion, limits.maxVersionBytes), ("build", context.build, limits.maxVersionBytes),
                                   ("platform", context.platform, limits.maxPlatformBytes), ("osVersion", context.osVersion, limits.maxVersionBytes),
                                   ("sdk", context.sdk, limits.maxTagBytes), ("deviceId", context.deviceId, limits.maxTagBytes)] as [(String, String?, Int)] {
            if let problem = stringProblem(value, max: max) { return finding("context.\(name) \(problem)") }
        }
        let earliest = receivedAt.microseconds - limits.maxEventAgeMicroseconds
        let latest = receivedAt.microseconds + limits.maxFutureMicroseconds
        for event in batch.events {
            for (name, value) in [("notificationId", event.notificationId), ("category", event.category), ("actionIdentifier", event.actionIdentifier),
                                  ("campaign", event.campaign), ("variant", event.variant)] as [(String, String?)] {
                if let problem = stringProblem(value, max: limits.maxIdentifierBytes) { return finding("\(name) \(problem)") }
            }
            switch event.type {
            case .response:
                if (event.actionIdentifier ?? "").isEmpty { return finding("a response without an action was accepted") }
            case .delivered, .sent, .conversion, .assignment:
                if event.actionIdentifier != nil || event.userTextLength != nil { return finding("a \(event.type.rawValue) with response fields was accepted") }
            }
            if let problem = conversionProblem(event, limits: limits) { return finding(problem) }
            if let length = event.userTextLength, length < 0 || Int64(length) > limits.maxUserTextLength {
                return finding("userTextLength \(length) was accepted")
            }
            if !event.hasMedia, !event.mediaTypes.isEmpty { return finding("mediaTypes without hasMedia") }
            if event.eventTime.microseconds < earliest || event.eventTime.microseconds > latest {
                return finding("event time \(event.eventTime) is outside the accepted window")
            }
            for (name, time) in [("timestamp", event.deviceTime), ("deliveredAt", event.deliveredAt)] as [(String, Timestamp?)] {
                if let time, time.microseconds < postgresMinMicroseconds {
                    return finding("\(name) \(time.microseconds) µs is before PostgreSQL's earliest timestamp: the COPY would fail")
                }
            }
        }
        return nil
    }

    /// A conversion's fields as docs/outcomes.md says they are stored: only on a conversion, a
    /// name, a value from 0 to the maximum with an ISO 4217 currency, or neither; the event's own
    /// install id bounded as the context's.
    static func conversionProblem(_ event: Event, limits: IngestLimits) -> String? {
        if let problem = stringProblem(event.deviceId, max: limits.maxTagBytes) { return "deviceId \(problem)" }
        guard let conversion = event.conversion else {
            return event.type == .conversion ? "a conversion without its name was accepted" : nil
        }
        if event.type != .conversion { return "a \(event.type.rawValue) with conversion fields was accepted" }
        if conversion.name.isEmpty { return "a conversion with an empty name was accepted" }
        if let problem = stringProblem(conversion.name, max: limits.maxIdentifierBytes) { return "name \(problem)" }
        if (conversion.value == nil) != (conversion.currency == nil) { return "a value without a currency, or a currency without a value, was accepted" }
        if let value = conversion.value, !(value.isFinite && value >= 0 && value <= IngestLimits.maxConversionValue) {
            return "conversion value \(value) was accepted"
        }
        if let currency = conversion.currency, !(currency.utf8.count == 3 && currency.utf8.allSatisfy { (65...90).contains($0) }) {
            return "currency \(FieldRules.truncatedForEcho(currency)) was accepted"
        }
        return nil
    }

    static func stringProblem(_ value: String?, max: Int) -> String? {
        guard let value else { return nil }
        if value.utf8.contains(0) { return "holds a NUL" }
        if value.utf8.count > max { return "is \(value.utf8.count) bytes (limit \(max))" }
        return nil
    }

    /// What the parser reads, the writer writes back the same.
    static func checkJSONRoundTrip(_ body: [UInt8]) -> FuzzFinding? {
        guard let value = try? JSONParser().parse(body) else { return nil }
        let again = value.serializedBytes()
        guard let reparsed = try? JSONParser().parse(again) else {
            return FuzzFinding(invariant: "JSON round trip", detail: "the serialized form does not parse")
        }
        if !sameJSON(value, reparsed) {
            return FuzzFinding(invariant: "JSON round trip", detail: "the serialized form parses to a different value")
        }
        return nil
    }

    /// Equal documents, by the writer's documented rules: a number literal too large for a double
    /// (1e999) has no JSON form and is written as null; numbers compare by value (the writer
    /// prints 14.0 and 0e308 as integers).
    static func sameJSON(_ original: JSONValue, _ written: JSONValue) -> Bool {
        switch (original, written) {
        case (.number(let n), .null): return n.integer == nil && !n.double.isFinite
        case (.number(let a), .number(let b)):
            if let x = a.integer, let y = b.integer { return x == y }
            return a.double == b.double
        case (.array(let a), .array(let b)): return a.count == b.count && zip(a, b).allSatisfy { sameJSON($0, $1) }
        case (.object(let a), .object(let b)):
            return a.duplicateKey == b.duplicateKey && a.members.count == b.members.count
                && zip(a.members, b.members).allSatisfy { $0.key == $1.key && sameJSON($0.value, $1.value) }
        default: return original == written
        }
    }

    /// The canonical JSON is what the database keeps and reports decode again: it must decode to
    /// the same manifest content (same hash).
    static func checkManifest(_ manifest: Manifest) -> FuzzFinding? {
        let canonical = manifest.canonicalJSON.serializedBytes()
        switch IngestBodyPipeline.decodeManifest(canonical, limits: limits) {
        case .failure(let error):
            return FuzzFinding(invariant: "manifest round trip", detail: "the stored canonical form is refused: \(error.code.rawValue) \(error.message)")
        case .success(let again):
            if again.contentHash != manifest.contentHash {
                return FuzzFinding(invariant: "manifest round trip", detail: "the stored canonical form hashes differently")
            }
        }
        return nil
    }
}
