/// What a telemetry event records. `delivered` is the denominator of engagement, `response`
/// is what the user did, `sent` is the push backend's own count (the fallback denominator).
public enum EventType: String, Sendable, CaseIterable, Hashable {
    case delivered
    case response
    case sent
}

/// The attachment kinds present on a notification, as a bit set (stored as a smallint).
public struct MediaKinds: OptionSet, Sendable, Hashable {
    public let rawValue: Int16
    public init(rawValue: Int16) { self.rawValue = rawValue }

    public static let image = MediaKinds(rawValue: 1)
    public static let audio = MediaKinds(rawValue: 2)
    public static let video = MediaKinds(rawValue: 4)
    public static let other = MediaKinds(rawValue: 8)

    public static let names: [(String, MediaKinds)] = [("image", .image), ("audio", .audio), ("video", .video), ("other", .other)]

    public init?(name: String) {
        guard let match = MediaKinds.names.first(where: { $0.0 == name }) else { return nil }
        self = match.1
    }

    public var nameList: [String] { MediaKinds.names.filter { contains($0.1) }.map(\.0) }
}

/// The two action identifiers iOS itself produces (UNNotificationDefaultActionIdentifier and
/// UNNotificationDismissActionIdentifier). Every other identifier is one the app registered.
public enum SystemAction {
    public static let open = "com.apple.UNNotificationDefaultActionIdentifier"
    public static let dismiss = "com.apple.UNNotificationDismissActionIdentifier"

    public static func isSystem(_ identifier: String) -> Bool { identifier == open || identifier == dismiss }
}

/// Where a batch came from, shared by all of its events.
public struct DeviceContext: Sendable, Equatable, Hashable {
    /// '' when the sender did not say.
    public var appVersion: String
    public var build: String?
    /// '' when the sender did not say.
    public var platform: String
    public var osVersion: String?
    public var sdk: String?
    /// Optional and opaque: whatever the app chose to send, never derived by Tapwire.
    public var deviceId: String?

    public init(appVersion: String = "", build: String? = nil, platform: String = "", osVersion: String? = nil,
                sdk: String? = nil, deviceId: String? = nil) {
        self.appVersion = appVersion
        self.build = build
        self.platform = platform
        self.osVersion = osVersion
        self.sdk = sdk
        self.deviceId = deviceId
    }
}

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

    public init(eventId: EventID, type: EventType, deviceTime: Timestamp, eventTime: Timestamp? = nil,
                timeClamped: Bool = false, notificationId: String? = nil, category: String,
                actionIdentifier: String? = nil, userTextLength: Int32? = nil, hasMedia: Bool = false,
                mediaTypes: MediaKinds = [], mediaRequested: Bool? = nil, categoryRegistered: Bool? = nil,
                campaign: String? = nil, variant: String? = nil, deliveredAt: Timestamp? = nil) {
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
    }
}

/// Clock-skew correction as Segment and Snowplow do it: the device's clock may be wrong, but
/// the interval between its `timestamp` and its `sentAt` is right, so
/// `eventTime = receivedAt - (sentAt - timestamp)`.
public struct ClockSkew: Sendable, Equatable {
    /// receivedAt - sentAt, or 0 when the batch had no sentAt.
    public var offsetMicroseconds: Int64
    public var receivedAt: Timestamp
    /// A corrected time further than this in the future is clamped to receivedAt.
    public var maxFutureMicroseconds: Int64

    /// A sentAt so absurd that the offset does not fit: every time is clamped.
    public var offsetOverflowed: Bool

    public init(sentAt: Timestamp?, receivedAt: Timestamp, maxFutureMicroseconds: Int64 = 86_400_000_000) {
        let (offset, overflow) = sentAt.map { receivedAt.microseconds.subtractingReportingOverflow($0.microseconds) } ?? (0, false)
        self.offsetMicroseconds = offset
        self.offsetOverflowed = overflow
        self.receivedAt = receivedAt
        self.maxFutureMicroseconds = maxFutureMicroseconds
    }

    /// The corrected time, and whether it had to be clamped.
    public func correct(_ deviceTime: Timestamp) -> (time: Timestamp, clamped: Bool) {
        let (corrected, overflow) = deviceTime.microseconds.addingReportingOverflow(offsetMicroseconds)
        let (ahead, aheadOverflow) = corrected.subtractingReportingOverflow(receivedAt.microseconds)
        if offsetOverflowed || overflow || aheadOverflow || ahead > maxFutureMicroseconds {
            return (receivedAt, true)
        }
        return (Timestamp(microseconds: corrected), false)
    }
}
