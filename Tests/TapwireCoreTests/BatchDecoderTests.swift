import Testing
@testable import TapwireCore

@Suite struct BatchDecoderTests {
    let received = Timestamp(iso8601: "2026-12-01T12:00:00Z")!

    func decode(_ text: String) throws -> DecodedBatch {
        try BatchDecoder().decode(Array(text.utf8), receivedAt: received)
    }

    func event(_ fields: String, id: String = "01938a2e-7b1c-7d3e-9f00-123456789abc") -> String {
        #"{"eventId": "\#(id)", "timestamp": "2026-12-01T11:59:00Z", \#(fields)}"#
    }

    @Test func decodesEveryField() throws {
        let batch = try decode("""
        {"sentAt": "2026-12-01T11:59:30Z",
         "context": {"appVersion": "3.2.1", "build": "412", "platform": "iOS", "osVersion": "18.1", "sdk": "tapwire-swift/1.0", "deviceId": "d1"},
         "events": [\(event(#""type": "response", "notificationId": "n1", "category": "message", "actionIdentifier": "reply", "userTextLength": 14, "hasMedia": true, "mediaTypes": ["image", "video"], "mediaRequested": true, "categoryRegistered": true, "campaign": "winter", "variant": "B", "deliveredAt": "2026-12-01T11:58:00Z""#))]}
        """)
        #expect(batch.rejections.isEmpty)
        let e = try #require(batch.events.first)
        #expect(e.type == .response)
        #expect(e.actionIdentifier == "reply")
        #expect(e.userTextLength == 14)
        #expect(e.hasMedia && e.mediaTypes == [.image, .video])
        #expect(e.mediaRequested == true && e.categoryRegistered == true)
        #expect(e.campaign == "winter" && e.variant == "B" && e.notificationId == "n1")
        #expect(batch.context == DeviceContext(appVersion: "3.2.1", build: "412", platform: "iOS", osVersion: "18.1",
                                               sdk: "tapwire-swift/1.0", deviceId: "d1"))
        // Skew: sentAt is 30 s before receivedAt, so every time moves 30 s later.
        #expect(e.eventTime.description == "2026-12-01T11:59:30.000Z")
        #expect(e.deviceTime.description == "2026-12-01T11:59:00.000Z")
        #expect(e.deliveredAt?.description == "2026-12-01T11:58:30.000Z")
    }

    /// A NUL anywhere in any string field, in a short string or a long one, after non-ASCII text
    /// or not, rejects the event (`FieldRules.containsNUL` reads the bytes in place); text
    /// without one is kept.
    @Test func aNULAnywhereInAStringIsRefused() throws {
        let texts = ["\\u0000", "a\\u0000", "\\u0000b", "caf\u{E9}\\u0000", String(repeating: "x", count: 40) + "\\u0000",
                     String(repeating: "y", count: 17) + "\\u0000" + String(repeating: "z", count: 30)]
        for text in texts {
            for field in ["category", "notificationId", "campaign", "variant", "deviceId"] {
                let batch = try decode(#"{"events": [\#(event(#""type": "delivered", "\#(field)": "\#(text)""#))]}"#)
                #expect(batch.events.isEmpty, "\(field): \(text)")
                #expect(batch.rejections.first?.code == .nulCharacter, "\(field): \(text)")
            }
            #expect(throws: BatchError.self) { try decode(#"{"context": {"appVersion": "\#(text)"}, "events": []}"#) }
        }
        for text in ["", "a", "caf\u{E9}", "tab\\there", String(repeating: "x", count: 40), "\\u0001"] {
            let batch = try decode(#"{"context": {"appVersion": "\#(text)"}, "events": [\#(event(#""type": "delivered", "category": "\#(text)""#))]}"#)
            #expect(batch.events.count == 1, "\(text)")
        }
        #expect(FieldRules.containsNUL("a\u{0}b") && FieldRules.containsNUL(String(repeating: "é", count: 20) + "\u{0}"))
        #expect(!FieldRules.containsNUL("") && !FieldRules.containsNUL(String(repeating: "é", count: 20)))
    }

    @Test func correctsATwoHourFastClock() throws {
        // The device clock is 2 h fast: it stamps the event 13:59 and sends it at 14:00, both device time.
        let batch = try decode(#"{"sentAt": "2026-12-01T14:00:00Z", "events": [{"eventId": "01938a2e-7b1c-7d3e-9f00-123456789abc", "type": "delivered", "timestamp": "2026-12-01T13:59:00Z"}]}"#)
        let e = try #require(batch.events.first)
        #expect(e.eventTime.description == "2026-12-01T11:59:00.000Z")
        #expect(e.deviceTime.description == "2026-12-01T13:59:00.000Z")
        #expect(!e.timeClamped)
    }

    @Test func clampsMoreThanADayInTheFuture() throws {
        // No sentAt: no correction; a timestamp two days ahead is clamped to the receive time.
        let batch = try decode(#"{"events": [{"eventId": "01938a2e-7b1c-7d3e-9f00-123456789abc", "type": "delivered", "timestamp": "2026-12-03T12:00:00Z"}]}"#)
        let e = try #require(batch.events.first)
        #expect(e.timeClamped)
        #expect(e.eventTime == received)
        #expect(batch.clampedCount == 1)
    }

    @Test func rejectsEventsIndividuallyWithReasons() throws {
        let events = [
            event(#""type": "delivered", "category": "ok""#, id: "01938a2e-7b1c-7d3e-9f00-000000000001"),
            event(#""type": "response", "category": "message""#, id: "01938a2e-7b1c-7d3e-9f00-000000000002"),
            event(#""type": "delivered", "userTextLength": 3"#, id: "01938a2e-7b1c-7d3e-9f00-000000000003"),
            event(#""type": "response", "actionIdentifier": "reply", "userTextLength": -1"#, id: "01938a2e-7b1c-7d3e-9f00-000000000004"),
            event(#""type": "opened""#, id: "01938a2e-7b1c-7d3e-9f00-000000000005"),
            #"{"eventId": "01938a2e-7b1c-7d3e-9f00-000000000006", "type": "delivered", "timestamp": "last tuesday"}"#,
            event(#""type": "delivered", "category": "a\u0000b""#, id: "01938a2e-7b1c-7d3e-9f00-000000000007"),
            event(#""type": "delivered", "category": "\#(String(repeating: "x", count: 300))""#, id: "01938a2e-7b1c-7d3e-9f00-000000000008"),
            #"{"eventId": "not-a-uuid", "type": "delivered", "timestamp": "2026-12-01T11:00:00Z"}"#,
            #""just a string""#,
            event(#""type": "delivered", "type": "sent""#, id: "01938a2e-7b1c-7d3e-9f00-000000000011"),
            event(#""type": "response", "actionIdentifier": "reply", "userTextLength": 2.5"#, id: "01938a2e-7b1c-7d3e-9f00-000000000012"),
            event(#""type": "delivered", "hasMedia": "yes""#, id: "01938a2e-7b1c-7d3e-9f00-000000000013"),
            event(#""type": "delivered", "mediaTypes": ["hologram"]"#, id: "01938a2e-7b1c-7d3e-9f00-000000000014"),
            #"{"eventId": "01938a2e-7b1c-7d3e-9f00-000000000015", "type": "delivered", "timestamp": "1970-01-01T00:00:00Z"}"#,
            event(#""type": "delivered", "actionIdentifier": "x""#, id: "01938a2e-7b1c-7d3e-9f00-000000000016"),
        ]
        let batch = try decode(#"{"events": [\#(events.joined(separator: ","))]}"#)
        #expect(batch.events.count == 1)
        #expect(batch.indices == [0])
        let byIndex = Dictionary(uniqueKeysWithValues: batch.rejections.map { ($0.index, $0) })
        #expect(byIndex.count == events.count - 1)
        #expect(byIndex[1]?.code == .missingField)
        #expect(byIndex[1]?.reason.contains("actionIdentifier") == true)
        #expect(byIndex[2]?.reason.contains("only valid on a response") == true)
        #expect(byIndex[3]?.code == .invalidField)
        #expect(byIndex[4]?.code == .unknownType)
        #expect(byIndex[5]?.reason.contains("timestamp") == true)
        #expect(byIndex[6]?.code == .nulCharacter)
        #expect(byIndex[7]?.code == .tooLong)
        #expect(byIndex[8]?.reason.contains("UUID") == true)
        #expect(byIndex[9]?.code == .notAnObject)
        #expect(byIndex[10]?.code == .duplicateKey)
        #expect(byIndex[11]?.code == .invalidField)
        #expect(byIndex[12]?.code == .invalidField)
        #expect(byIndex[13]?.code == .invalidField)
        #expect(byIndex[14]?.code == .tooOld)
        #expect(byIndex[15]?.code == .invalidField)
        #expect(byIndex[2]?.eventId == "01938a2e-7b1c-7d3e-9f00-000000000003")
    }

    @Test func rejectsOversizedEvent() throws {
        let padding = String(repeating: "x", count: 40_000)
        let batch = try decode(#"{"events": [{"eventId": "01938a2e-7b1c-7d3e-9f00-123456789abc", "type": "delivered", "timestamp": "2026-12-01T11:00:00Z", "junk": "\#(padding)"}]}"#)
        #expect(batch.rejections.first?.code == .tooLarge)
    }

    @Test func wholeBatchErrors() {
        func code(_ text: String) -> BatchError.Code? {
            do {
                _ = try BatchDecoder().decode(Array(text.utf8), receivedAt: received)
                return nil
            } catch {
                return error.code
            }
        }
        #expect(code("{") == .malformedJSON)
        #expect(code("[]") == .invalidBatch)
        #expect(code(#"{"events": {}}"#) == .invalidBatch)
        #expect(code(#"{"sentAt": "soon", "events": []}"#) == .invalidBatch)
        #expect(code(#"{"context": {"appVersion": 3}, "events": []}"#) == .invalidBatch)
        #expect(code(#"{"events": [], "events": []}"#) == .invalidBatch)
        let many = "{\"events\": [" + Array(repeating: "{}", count: 2001).joined(separator: ",") + "]}"
        #expect(code(many) == .tooManyEvents)
        #expect(code(String(repeating: "[", count: 100)) == .tooDeep)
    }

    @Test func invalidUTF8IsItsOwnError() {
        let bytes = Array(#"{"events": [], "x": ""#.utf8) + [0xFF] + Array(#""}"#.utf8)
        do {
            _ = try BatchDecoder().decode(bytes, receivedAt: received)
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .invalidUTF8)
        }
    }
}

@Suite struct ClockSkewTests {
    @Test func correctsBySentAtOffset() {
        let skew = ClockSkew(sentAt: Timestamp(seconds: 1000), receivedAt: Timestamp(seconds: 400))
        let (time, clamped) = skew.correct(Timestamp(seconds: 990))
        #expect(time == Timestamp(seconds: 390))
        #expect(!clamped)
    }

    @Test func clampsFarFutureAndSurvivesOverflow() {
        let skew = ClockSkew(sentAt: nil, receivedAt: Timestamp(seconds: 100))
        #expect(skew.correct(Timestamp(seconds: 100 + 86_401)).clamped)
        #expect(!skew.correct(Timestamp(seconds: 100 + 86_399)).clamped)
        let wild = ClockSkew(sentAt: Timestamp(microseconds: .min + 10), receivedAt: Timestamp(seconds: 100))
        #expect(wild.correct(Timestamp(microseconds: .max - 10)).clamped)
    }

}

@Suite struct WireRoundTripTests {
    /// The one encoder (`TapwireWire/WireBatch.swift`) and the decoder agree on every field, so the
    /// SDK, the demo and the benchmark cannot write what the collector reads differently.
    @Test func whatTheWireEncoderWritesTheDecoderReadsBack() throws {
        let sentAt = Timestamp(iso8601: "2026-12-01T11:59:30Z")!
        let context = WireContext(appVersion: "3.2.1", build: "412", platform: "iPadOS", osVersion: "18.1",
                                  sdk: "tapwire-swift/1.0", deviceId: "d1")
        var rng = SystemRandomNumberGenerator()
        let full = WireEvent(eventId: .v7(at: sentAt, using: &rng), type: .response, timestamp: Timestamp(iso8601: "2026-12-01T11:59:00Z")!,
                             notificationId: "n1", category: "message", actionIdentifier: "reply", userTextLength: 14, hasMedia: true,
                             mediaTypes: ["image", "video"], mediaRequested: true, categoryRegistered: false, campaign: "winter",
                             variant: "B", deliveredAt: Timestamp(iso8601: "2026-12-01T11:58:00Z")!)
        let bare = WireEvent(eventId: .v7(at: sentAt, using: &rng), type: .sent, timestamp: sentAt, category: "")
        let batch = try BatchDecoder().decode(WireBatch.encode(sentAt: sentAt, context: context, events: [full, bare]),
                                             receivedAt: Timestamp(iso8601: "2026-12-01T12:00:00Z")!)
        #expect(batch.rejections.isEmpty)
        #expect(batch.context == DeviceContext(appVersion: "3.2.1", build: "412", platform: "iPadOS", osVersion: "18.1",
                                               sdk: "tapwire-swift/1.0", deviceId: "d1"))
        try #require(batch.events.count == 2)
        let e = batch.events[0], s = batch.events[1]
        #expect(e.type == .response)
        #expect(e.eventId == full.eventId && e.notificationId == "n1" && e.category == "message")
        #expect(e.actionIdentifier == "reply" && e.userTextLength == 14 && e.hasMedia)
        #expect(e.mediaTypes == [.image, .video])
        #expect(e.mediaRequested == true && e.categoryRegistered == false && e.campaign == "winter" && e.variant == "B")
        #expect(e.deviceTime == full.timestamp)
        #expect(e.deliveredAt?.description == "2026-12-01T11:58:30.000Z")
        #expect(s.type == .sent)
        #expect(s.eventId == bare.eventId && s.category == "" && s.actionIdentifier == nil)
        #expect(s.notificationId == nil && s.campaign == nil && s.deliveredAt == nil && !s.hasMedia)
    }
}
