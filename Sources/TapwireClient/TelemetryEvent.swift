import Foundation

/// One event as it will be posted. Built by `EventBuilder` from plain values; it holds no user
/// text (only a reply's length), and only the user-info values the configuration names.
public struct TelemetryEvent: Sendable, Equatable {
    public var eventId: TelemetryEventID
    public var type: TelemetryEventType
    /// Device time of the event, µs since the epoch; the collector corrects skew with `sentAt`.
    public var timestampMicros: Int64
    public var notificationId: String?
    /// '' when the notification had no category.
    public var category: String
    public var actionIdentifier: String?
    public var userTextLength: Int?
    public var hasMedia: Bool
    public var mediaTypes: [AttachmentKind]
    public var mediaRequested: Bool?
    public var categoryRegistered: Bool?
    public var campaign: String?
    public var variant: String?
    public var deliveredAtMicros: Int64?
    /// A conversion's name, value and ISO 4217 currency; nil on the other types.
    public var name: String?
    public var value: Double?
    public var currency: String?

    public init(eventId: TelemetryEventID, type: TelemetryEventType, timestampMicros: Int64, notificationId: String? = nil,
                category: String, actionIdentifier: String? = nil, userTextLength: Int? = nil, hasMedia: Bool = false,
                mediaTypes: [AttachmentKind] = [], mediaRequested: Bool? = nil, categoryRegistered: Bool? = nil,
                campaign: String? = nil, variant: String? = nil, deliveredAtMicros: Int64? = nil,
                name: String? = nil, value: Double? = nil, currency: String? = nil) {
        self.eventId = eventId
        self.type = type
        self.timestampMicros = timestampMicros
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
        self.deliveredAtMicros = deliveredAtMicros
        self.name = name
        self.value = value
        self.currency = currency
    }

    /// The event as the wire carries it (`WireEvent`, the one encoder of `POST /v1/batch`).
    public var wire: WireEvent {
        WireEvent(eventId: eventId, type: wireType, timestamp: Timestamp(microseconds: timestampMicros),
                  notificationId: notificationId, category: category, actionIdentifier: actionIdentifier,
                  userTextLength: userTextLength.map(Int64.init), hasMedia: hasMedia, mediaTypes: mediaTypes.map(\.rawValue),
                  mediaRequested: mediaRequested, categoryRegistered: categoryRegistered, campaign: campaign, variant: variant,
                  deliveredAt: deliveredAtMicros.map { Timestamp(microseconds: $0) }, name: name, value: value, currency: currency)
    }

    private var wireType: WireEventType {
        switch type {
        case .delivered: .delivered
        case .response: .response
        case .conversion: .conversion
        }
    }

    /// The event's object in `POST /v1/batch` (README.md, "`POST /v1/batch`"); absent values are left out.
    public var json: JSONValue { wire.json }
}
