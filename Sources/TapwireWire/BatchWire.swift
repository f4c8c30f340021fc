/// The body of `POST /v1/batch` (README.md, "`POST /v1/batch`"), written once: the SDK posts
/// with it, and the demo, the benchmark and the tests build their batches with it, so none of them
/// drifts from what the collector reads (`TapwireCore/Ingest/BatchDecoder.swift`).

/// An event's `type`.
public enum WireEventType: String, Sendable, CaseIterable, Hashable {
    case delivered
    case response
    case sent
}

/// One event of a batch. Absent values are left out of the JSON; `hasMedia` is left out of a
/// `sent` event, whose media the backend cannot know.
public struct WireEvent: Sendable, Equatable {
    public var eventId: EventID
    public var type: WireEventType
    /// Device time of the event; the collector corrects skew with the batch's `sentAt`.
    public var timestamp: Timestamp
    public var notificationId: String?
    /// '' when the notification had no category.
    public var category: String
    public var actionIdentifier: String?
    public var userTextLength: Int64?
    public var hasMedia: Bool
    /// `image`, `audio`, `video`, `other`.
    public var mediaTypes: [String]
    public var mediaRequested: Bool?
    public var categoryRegistered: Bool?
    public var campaign: String?
    public var variant: String?
    public var deliveredAt: Timestamp?

    public init(eventId: EventID, type: WireEventType, timestamp: Timestamp, notificationId: String? = nil, category: String,
                actionIdentifier: String? = nil, userTextLength: Int64? = nil, hasMedia: Bool = false, mediaTypes: [String] = [],
                mediaRequested: Bool? = nil, categoryRegistered: Bool? = nil, campaign: String? = nil, variant: String? = nil,
                deliveredAt: Timestamp? = nil) {
        self.eventId = eventId
        self.type = type
        self.timestamp = timestamp
        self.notificationId = notificationId
        self.category = category
        self.actionIdentifier = actionIdentifier
        self.userTextLength = userTextLength
        self.hasMedia = hasMedia
        self.mediaTypes = mediaTypes
        self.mediaRequested = mediaRequested
        self.categoryRegistered = categoryRegistered
        self.campaign = campaign
        self.variant = variant
        self.deliveredAt = deliveredAt
    }

    public var json: JSONValue {
        var members: [(String, JSONValue)] = [
            ("eventId", .string(eventId.description)),
            ("type", .string(type.rawValue)),
            ("timestamp", .string(timestamp.description)),
        ]
        if let notificationId { members.append(("notificationId", .string(notificationId))) }
        members.append(("category", .string(category)))
        if let actionIdentifier { members.append(("actionIdentifier", .string(actionIdentifier))) }
        if let userTextLength { members.append(("userTextLength", .int(userTextLength))) }
        if type != .sent { members.append(("hasMedia", .bool(hasMedia))) }
        if !mediaTypes.isEmpty { members.append(("mediaTypes", .array(mediaTypes.map { .string($0) }))) }
        if let mediaRequested { members.append(("mediaRequested", .bool(mediaRequested))) }
        if let categoryRegistered { members.append(("categoryRegistered", .bool(categoryRegistered))) }
        if let campaign { members.append(("campaign", .string(campaign))) }
        if let variant { members.append(("variant", .string(variant))) }
        if let deliveredAt { members.append(("deliveredAt", .string(deliveredAt.description))) }
        return .object(members)
    }
}

/// The device facts sent with every batch (`context`).
public struct WireContext: Sendable, Equatable {
    public var appVersion: String
    public var build: String?
    public var platform: String
    public var osVersion: String?
    public var sdk: String?
    public var deviceId: String?

    public init(appVersion: String, build: String? = nil, platform: String, osVersion: String? = nil, sdk: String? = nil,
                deviceId: String? = nil) {
        self.appVersion = appVersion
        self.build = build
        self.platform = platform
        self.osVersion = osVersion
        self.sdk = sdk
        self.deviceId = deviceId
    }

    public var json: JSONValue {
        var members: [(String, JSONValue)] = [("appVersion", .string(appVersion))]
        if let build { members.append(("build", .string(build))) }
        members.append(("platform", .string(platform)))
        if let osVersion { members.append(("osVersion", .string(osVersion))) }
        if let sdk { members.append(("sdk", .string(sdk))) }
        if let deviceId { members.append(("deviceId", .string(deviceId))) }
        return .object(members)
    }
}

/// A whole batch body. `sentAt` is the time of this send, so the collector's skew correction stays
/// right on a retry days later: build the body for each attempt.
public enum WireBatch {
    /// Events already serialised (the SDK keeps them so in its queue).
    public static func encode(sentAt: Timestamp, context: WireContext, events: [[UInt8]]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(events.reduce(128) { $0 + $1.count + 1 })
        out.append(contentsOf: #"{"sentAt":"#.utf8)
        JSONValue.writeString(sentAt.description, to: &out)
        out.append(contentsOf: #","context":"#.utf8)
        out.append(contentsOf: context.json.serializedBytes())
        out.append(contentsOf: #","events":["#.utf8)
        for (i, event) in events.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            out.append(contentsOf: event)
        }
        out.append(contentsOf: "]}".utf8)
        return out
    }

    public static func encode(sentAt: Timestamp, context: WireContext, events: [WireEvent]) -> [UInt8] {
        encode(sentAt: sentAt, context: context, events: events.map { $0.json.serializedBytes() })
    }
}
