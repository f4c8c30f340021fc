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
