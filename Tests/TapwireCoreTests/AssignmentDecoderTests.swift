import TapwireStatistics
import Testing
@testable import TapwireCore

/// The holdout's assignment record through the batch decoder (docs/holdouts.md): every field read,
/// each wrong one rejected alone with its own reason.
@Suite struct AssignmentDecoderTests {
    let received = Timestamp(iso8601: "2026-12-01T12:00:00Z")!

    func decode(_ events: [String], context: String = #"{"platform": "iOS"}"#) throws -> DecodedBatch {
        try BatchDecoder().decode(Array(#"{"context": \#(context), "events": [\#(events.joined(separator: ","))]}"#.utf8), receivedAt: received)
    }

    func assignment(_ fields: String, id: Int = 1) -> String {
        #"{"eventId": "01938a2e-7b1c-7d3e-9f00-\#(String(format: "%012d", id))", "type": "assignment", "timestamp": "2026-12-01T11:59:00Z", \#(fields)}"#
    }

    @Test func decodesAnAssignment() throws {
        let batch = try decode([
            assignment(#""campaign": "winter-sale", "arm": "held_out", "holdoutShare": 0.1, "deviceId": "install-1""#, id: 1),
            assignment(#""campaign": "winter-sale", "arm": "treated", "holdoutShare": 0.25"#, id: 2),
        ], context: #"{"platform": "iOS", "deviceId": "install-ctx"}"#)
        #expect(batch.rejections.isEmpty)
        try #require(batch.events.count == 2)
        let held = batch.events[0], treated = batch.events[1]
        #expect(held.type == .assignment && held.campaign == "winter-sale" && held.deviceId == "install-1")
        #expect(held.assignment == Event.Assignment(arm: .heldOut, holdoutShare: 0.1))
        #expect(treated.assignment == Event.Assignment(arm: .treated, holdoutShare: 0.25))
        #expect(treated.deviceId == nil, "the batch context's install id applies")
        #expect(held.conversion == nil && held.actionIdentifier == nil && held.category == "")
    }

    @Test func rejectsEachWrongFieldWithItsReason() throws {
        let cases: [(String, EventRejection.Code, String)] = [
            (#""arm": "treated", "holdoutShare": 0.1, "deviceId": "d""#, .missingField, "campaign is required"),
            (#""campaign": "", "arm": "treated", "holdoutShare": 0.1, "deviceId": "d""#, .missingField, "campaign is required"),
            (#""campaign": "c", "holdoutShare": 0.1, "deviceId": "d""#, .missingField, "arm is required"),
            (#""campaign": "c", "arm": "control", "holdoutShare": 0.1, "deviceId": "d""#, .invalidField, "arm must be treated or held_out, got \"control\""),
            (#""campaign": "c", "arm": "treated", "deviceId": "d""#, .missingField, "holdoutShare is required"),
            (#""campaign": "c", "arm": "treated", "holdoutShare": 0, "deviceId": "d""#, .invalidField, "strictly between 0 and 1"),
            (#""campaign": "c", "arm": "treated", "holdoutShare": 1, "deviceId": "d""#, .invalidField, "strictly between 0 and 1"),
            (#""campaign": "c", "arm": "treated", "holdoutShare": 10, "deviceId": "d""#, .invalidField, "strictly between 0 and 1"),
            (#""campaign": "c", "arm": "treated", "holdoutShare": "0.1", "deviceId": "d""#, .invalidField, "holdoutShare must be a number"),
            (#""campaign": "c", "arm": "treated", "holdoutShare": 0.1"#, .missingField, "needs an install id"),
            (#""campaign": "c", "arm": "treated", "holdoutShare": 0.1, "deviceId": "d", "actionIdentifier": "x""#, .invalidField, "only valid on a response"),
            (#""campaign": "c", "arm": "treated", "holdoutShare": 0.1, "deviceId": "d", "name": "purchase""#, .invalidField, "only valid on a conversion"),
        ]
        let batch = try decode(cases.enumerated().map { assignment($0.element.0, id: $0.offset) })
        #expect(batch.events.isEmpty)
        let byIndex = Dictionary(uniqueKeysWithValues: batch.rejections.map { ($0.index, $0) })
        for (i, (_, code, reason)) in cases.enumerated() {
            #expect(byIndex[i]?.code == code, "case \(i)")
            #expect(byIndex[i]?.reason.contains(reason) == true, "case \(i): \(byIndex[i]?.reason ?? "accepted")")
        }
    }

    @Test func armAndShareAreOnlyValidOnAnAssignment() throws {
        let batch = try decode([
            #"{"eventId": "01938a2e-7b1c-7d3e-9f00-000000000001", "type": "delivered", "timestamp": "2026-12-01T11:59:00Z", "arm": "treated"}"#,
            #"{"eventId": "01938a2e-7b1c-7d3e-9f00-000000000002", "type": "conversion", "timestamp": "2026-12-01T11:59:00Z", "name": "purchase", "holdoutShare": 0.1}"#,
            #"{"eventId": "01938a2e-7b1c-7d3e-9f00-000000000003", "type": "treatment", "timestamp": "2026-12-01T11:59:00Z"}"#,
        ])
        #expect(batch.events.isEmpty)
        #expect(batch.rejections.map(\.reason) == ["arm is only valid on an assignment", "holdoutShare is only valid on an assignment",
                                                   "type must be delivered, response, sent, conversion or assignment, got \"treatment\""])
    }

    /// The wire's encoder (TapwireWire) writes what the decoder reads back.
    @Test func theWireEncoderWritesWhatTheDecoderReads() throws {
        var rng = SeededGenerator(seed: 36)
        let at = Timestamp(iso8601: "2026-12-01T11:00:00Z")!
        let wire = WireEvent.assignment(eventId: .v7(at: at, using: &rng), timestamp: at, campaign: "spring", arm: "held_out",
                                        holdoutShare: 0.05, deviceId: "install-9")
        let batch = try BatchDecoder().decode(WireBatch.encode(sentAt: at, context: WireContext(appVersion: "1.0", platform: "iOS"), events: [wire]), receivedAt: received)
        #expect(batch.rejections.isEmpty)
        let e = try #require(batch.events.first)
        #expect(e.eventId == wire.eventId && e.type == .assignment && e.campaign == "spring" && e.deviceId == "install-9")
        #expect(e.assignment == Event.Assignment(arm: .heldOut, holdoutShare: 0.05))
    }

    /// Engagement's rollups count no assignment (nor conversion): they are the holdouts' own.
    @Test func engagementRollupsIgnoreAssignments() throws {
        var deltas = RollupDeltas()
        let at = Timestamp(iso8601: "2026-12-01T11:00:00Z")!
        deltas.add(Event(eventId: .v7(at: at), type: .assignment, deviceTime: at, category: "", campaign: "c",
                         assignment: Event.Assignment(arm: .treated, holdoutShare: 0.1), deviceId: "d"),
                   appId: 1, context: DeviceContext(platform: "iOS"))
        #expect(deltas == RollupDeltas())
    }
}
