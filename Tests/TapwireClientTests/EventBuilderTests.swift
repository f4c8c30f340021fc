import Foundation
import Testing
@testable import TapwireClient

@Suite struct EventBuilderTests {
    let id = TelemetryEventID("0193a2e0-7b1c-7d3e-9f00-123456789abc")!
    let time = Date(timeIntervalSince1970: 1_796_119_205.120)
    let delivery = Date(timeIntervalSince1970: 1_796_119_100)

    func json(_ event: TelemetryEvent) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(event.json.serializedBytes())) as? [String: Any])
    }

    @Test func responseCarriesActionTextLengthMediaAndDeliveryTime() throws {
        let content = NotificationContentValues(
            categoryIdentifier: "message",
            attachments: [AttachmentValues(typeIdentifier: "public.jpeg"), AttachmentValues(typeIdentifier: nil, fileExtension: "MP4")],
            userInfo: ["campaign": "winter-sale", "variant": "B", "media-url": "https://cdn.example/x.jpg", "email": "a@b.c"])
        let response = NotificationResponseValues(actionIdentifier: "reply", notificationId: "apns-1", deliveryDate: delivery,
                                                  content: content, userTextLength: NotificationResponseValues.textLength(of: "hi 👋🏽 there"))
        let event = EventBuilder().response(response, id: id, at: time, registeredCategories: ["message", "social_post"])
        #expect(event.type == .response)
        #expect(event.userTextLength == 10)  // the emoji with its skin tone is one character
        #expect(event.mediaTypes == [.image, .video])
        let object = try json(event)
        #expect(object["eventId"] as? String == "0193a2e0-7b1c-7d3e-9f00-123456789abc")
        #expect(object["type"] as? String == "response")
        #expect(object["timestamp"] as? String == "2026-12-01T10:00:05.120Z")
        #expect(object["notificationId"] as? String == "apns-1")
        #expect(object["category"] as? String == "message")
        #expect(object["actionIdentifier"] as? String == "reply")
        #expect(object["userTextLength"] as? Int == 10)
        #expect(object["hasMedia"] as? Bool == true)
        #expect(object["mediaTypes"] as? [String] == ["image", "video"])
        #expect(object["mediaRequested"] as? Bool == true)
        #expect(object["categoryRegistered"] as? Bool == true)
        #expect(object["campaign"] as? String == "winter-sale")
        #expect(object["variant"] as? String == "B")
        #expect(object["deliveredAt"] as? String == "2026-12-01T09:58:20.000Z")
        // Nothing else: user-info values other than the configured keys never leave the device.
        #expect(Set(object.keys) == ["eventId", "type", "timestamp", "notificationId", "category", "actionIdentifier",
                                     "userTextLength", "hasMedia", "mediaTypes", "mediaRequested", "categoryRegistered",
                                     "campaign", "variant", "deliveredAt"])
        #expect(!event.json.serialized().contains("a@b.c"))
        #expect(!event.json.serialized().contains("cdn.example"))
    }

    @Test func deliveredWithoutMediaOrResponseFields() throws {
        let content = NotificationContentValues(categoryIdentifier: "Message", userInfo: ["utm": "x"])
        let event = EventBuilder().delivered(content, notificationId: "n1", id: id, at: time, registeredCategories: ["message"])
        let object = try json(event)
        #expect(object["type"] as? String == "delivered")
        #expect(object["hasMedia"] as? Bool == false)
        #expect(object["mediaTypes"] == nil)
        #expect(object["actionIdentifier"] == nil)
        #expect(object["userTextLength"] == nil)
        #expect(object["deliveredAt"] == nil)
        #expect(object["campaign"] == nil)
        #expect(object["mediaRequested"] as? Bool == false)
        // iOS matches categories case-sensitively: "Message" is not "message".
        #expect(object["categoryRegistered"] as? Bool == false)
    }

    @Test func configurableUserInfoKeys() throws {
        let keys = UserInfoKeys(campaign: "cmp", variant: nil, mediaRequest: nil)
        let content = NotificationContentValues(categoryIdentifier: "", userInfo: ["cmp": "spring", "variant": "A", "campaign": "ignored"])
        let event = EventBuilder(keys: keys).delivered(content, notificationId: nil, id: id, at: time, registeredCategories: nil)
        #expect(event.campaign == "spring")
        #expect(event.variant == nil)
        #expect(event.mediaRequested == nil)
        // No category at all, or no registered set known: nothing to claim.
        #expect(event.categoryRegistered == nil)
        #expect(try json(event)["category"] as? String == "")
        let known = EventBuilder(keys: keys).delivered(NotificationContentValues(categoryIdentifier: "x"), notificationId: nil,
                                                       id: id, at: time, registeredCategories: nil)
        #expect(known.categoryRegistered == nil)
    }

    @Test(arguments: [
        ("public.png", nil, AttachmentKind.image), ("com.compuserve.gif", nil, .image),
        ("public.mp3", nil, .audio), ("com.microsoft.waveform-audio", nil, .audio),
        ("public.mpeg-4", nil, .video), ("public.avi", nil, .video),
        (nil, "jpeg", .image), (nil, "m4a", .audio), (nil, "mov", .video),
        ("public.pdf", "pdf", .other), (nil, nil, .other),
    ] as [(String?, String?, AttachmentKind)])
    func classifiesAttachments(uti: String?, ext: String?, kind: AttachmentKind) {
        #expect(AttachmentKind(typeIdentifier: uti, fileExtension: ext) == kind)
    }

    @Test func negativeTextLengthIsClampedAndDismissIsKept() {
        let response = NotificationResponseValues(actionIdentifier: SystemActionIdentifier.dismiss,
                                                  content: NotificationContentValues(categoryIdentifier: "c"), userTextLength: -4)
        let event = EventBuilder().response(response, id: id, at: time, registeredCategories: ["c"])
        #expect(event.userTextLength == 0)
        #expect(event.actionIdentifier == "com.apple.UNNotificationDismissActionIdentifier")
    }
}

@Suite struct BatchingTests {
    @Test func dueByCountBytesOrAge() {
        let policy = BatchPolicy(maxEvents: 10, maxBytes: 4096, maxAge: 30)
        #expect(!policy.isDue(count: 0, bytes: 0, oldestAge: 1000))
        #expect(!policy.isDue(count: 9, bytes: 4095, oldestAge: 29.9))
        #expect(policy.isDue(count: 10, bytes: 100, oldestAge: 0))
        #expect(policy.isDue(count: 1, bytes: 4096, oldestAge: 0))
        #expect(policy.isDue(count: 1, bytes: 10, oldestAge: 30))
        #expect(BatchPolicy(maxEvents: 5000).maxEvents == 2000)
    }

    @Test func bodyHasSentAtContextAndEventsVerbatim() throws {
        let device = DeviceInfo(appVersion: "3.2.1", build: "412", platform: "iOS", osVersion: "18.1")
        let events = [Array(#"{"eventId":"a"}"#.utf8), Array(#"{"eventId":"b"}"#.utf8)]
        let body = BatchBody.encode(sentAtMicros: 1_796_119_205_120_000, device: device, events: events)
        #expect(String(decoding: body, as: UTF8.self) ==
            #"{"sentAt":"2026-12-01T10:00:05.120Z","context":{"appVersion":"3.2.1","build":"412","platform":"iOS","osVersion":"18.1","sdk":"tapwire-swift/1.0"},"events":[{"eventId":"a"},{"eventId":"b"}]}"#)
        #expect(!String(decoding: body, as: UTF8.self).contains("deviceId"))
        let withId = BatchBody.encode(sentAtMicros: 0, device: DeviceInfo(appVersion: "1", platform: "iOS", deviceId: "opaque-7"), events: [])
        let parsed = try #require(try JSONSerialization.jsonObject(with: Data(withId)) as? [String: Any])
        #expect((parsed["context"] as? [String: Any])?["deviceId"] as? String == "opaque-7")
        #expect((parsed["events"] as? [Any])?.isEmpty == true)
    }

    @Test func basicAuthIsTheWriteKeyWithAnEmptyPassword() {
        let configuration = TapwireConfiguration(writeKey: "wk_live_abc", endpoint: URL(string: "http://127.0.0.1:1")!,
                                                 queueDirectory: URL(fileURLWithPath: "/tmp/x"),
                                                 device: DeviceInfo(appVersion: "1", platform: "iOS"))
        #expect(configuration.authorizationHeader == "Basic d2tfbGl2ZV9hYmM6")  // base64("wk_live_abc:")
    }

    @Test func retryAfterSecondsAndHTTPDate() {
        let now = Date(timeIntervalSince1970: 1_445_412_480)  // Wed, 21 Oct 2015 07:28:00 GMT
        #expect(TransportResponse(status: 503, headers: ["Retry-After": "120"]).retryAfter(now: now) == 120)
        #expect(TransportResponse(status: 429, headers: ["retry-after": " 3 "]).retryAfter(now: now) == 3)
        #expect(TransportResponse(status: 503, headers: ["Retry-After": "Wed, 21 Oct 2015 07:30:00 GMT"]).retryAfter(now: now) == 120)
        #expect(TransportResponse(status: 503, headers: ["Retry-After": "soon"]).retryAfter(now: now) == nil)
        #expect(TransportResponse(status: 503).retryAfter(now: now) == nil)
    }

    @Test func collectorAnswersAreRead() {
        let ok = TransportResponse(status: 200, body: Array(#"{"accepted":2,"duplicates":1,"rejected":[{"index":1,"eventId":"e","code":"too_long","reason":"r"}]}"#.utf8))
        #expect(CollectorAnswer.outcome(of: ok) == .acknowledged(BatchAcknowledgement(
            accepted: 2, duplicates: 1, rejected: [BatchRejection(index: 1, eventId: "e", code: "too_long", reason: "r")])))
        #expect(CollectorAnswer.outcome(of: TransportResponse(status: 200, body: Array("<html>portal</html>".utf8))) == .unreadable(status: 200))
        let busy = TransportResponse(status: 503, headers: ["Retry-After": "7"], body: Array(#"{"error":{"code":"db_unavailable","message":"m"}}"#.utf8))
        #expect(CollectorAnswer.outcome(of: busy) == .status(503, retryAfter: 7, errorCode: "db_unavailable"))
        #expect(CollectorAnswer.outcome(of: TransportResponse(status: 502, body: Array("bad gateway".utf8))) == .status(502, retryAfter: nil, errorCode: nil))
    }
}
