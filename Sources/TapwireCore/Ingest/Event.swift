/// One validated event, with its time already corrected for the device's clock skew.
public struct Event: Sendable, Equatable {
    public var eventId: EventID
    public var type: EventType
    /// The `timestamp` exactly as the device sent it.
    public var deviceTime: Timestamp
    /// deviceTime corrected for clock skew (see `ClockSkew`).
    public var eventTime: Timestamp
    /// The corrected time was too far in the future and was clamped to the receive time.
    public var timeClamped: Bool
    public var notificationId: String?
    /// '' when the notification had no category.
    public var category: String
    public var actionIdentifier: String?
    /// Only the length of a text reply, never the text.
    public var userTextLength: Int32?
    /// Attachments were present when the user saw the notification (rich), not merely requested.
    public var hasMedia: Bool
    public var mediaTypes: MediaKinds
    public var mediaRequested: Bool?
    /// What the device itself reported: false means iOS showed the notification without buttons.
    public var categoryRegistered: Bool?
    public var campaign: String?
    public var variant: String?
    /// When the notification was delivered, corrected with the same clock offset.
    public var deliveredAt: Timestamp?
    /// A conversion's name, value (at least 0) and ISO 4217 currency; nil on every other type.
    public var conversion: Conversion?
    /// An assignment's arm and the holdout share the sender intended; nil on every other type.
    public var assignment: Assignment?
    /// This event's own install id, when it differs from the batch context's.
    public var deviceId: String?

    /// What a `conversion` event counts (docs/outcomes.md).
    public struct Conversion: Sendable, Equatable {
        public var name: String
        public var value: Double?
        public var currency: String?
        public init(name: String, value: Double? = nil, currency: String? = nil) {
            self.name = name
            self.value = value
            self.currency = currency
        }
    }

    /// What an `assignment` event records (docs/holdouts.md): the device's arm in the event's
    /// campaign, and the share of devices the sender meant to hold out.
    public struct Assignment: Sendable, Equatable {
        public var arm: HoldoutArm
        public var holdoutShare: Double
        public init(arm: HoldoutArm, holdoutShare: Double) {
            self.arm = arm
            self.holdoutShare = holdoutShare
        }
    }

    public init(eventId: EventID, type: EventType, deviceTime: Timestamp, eventTime: Timestamp? = nil,
                timeClamped: Bool = false, notificationId: String? = nil, category: String,
                actionIdentifier: String? = nil, userTextLength: Int32? = nil, hasMedia: Bool = false,
                mediaTypes: MediaKinds = [], mediaRequested: Bool? = nil, categoryRegistered: Bool? = nil,
                campaign: String? = nil, variant: String? = nil, deliveredAt: Timestamp? = nil,
                conversion: Conversion? = nil, assignment: Assignment? = nil, deviceId: String? = nil) {
        self.eventId = eventId
        self.type = type
        self.deviceTime = deviceTime
        self.eventTime = eventTime ?? deviceTime
        self.timeClamped = timeClamped
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
        self.conversion = conversion
        self.assignment = assignment
        self.deviceId = deviceId
    }
}
