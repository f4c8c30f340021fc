import Foundation

/// What the SDK records: `delivered` (the engagement denominator, from a Notification Service
/// Extension or `willPresent`) and `response` (from `didReceive`).
public enum TelemetryEventType: String, Sendable, CaseIterable, Hashable {
    case delivered
    case response
}

/// The kind of a notification attachment, as the collector counts media.
public enum AttachmentKind: String, Sendable, CaseIterable, Hashable, Comparable {
    case image, audio, video, other

    public static func < (a: AttachmentKind, b: AttachmentKind) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }

    /// Classifies an attachment by its uniform type identifier (`UNNotificationAttachment.type`),
    /// falling back to the file extension; Apple's supported formats are listed in docs/domain.md,
    /// "Attachments and rich notifications".
    public init(typeIdentifier: String?, fileExtension: String?) {
        let uti = (typeIdentifier ?? "").lowercased()
        switch uti {
        case "public.jpeg", "public.png", "com.compuserve.gif", "public.heic", "public.image", "public.tiff":
            self = .image; return
        case "public.aiff-audio", "public.aifc-audio", "com.microsoft.waveform-audio", "public.mp3",
             "public.mpeg-4-audio", "public.audio", "com.apple.m4a-audio":
            self = .audio; return
        case "public.mpeg", "public.mpeg-2-video", "public.mpeg-4", "public.avi", "public.movie",
             "public.video", "com.apple.quicktime-movie", "com.apple.m4v-video":
            self = .video; return
        default: break
        }
        switch (fileExtension ?? "").lowercased() {
        case "jpg", "jpeg", "png", "gif", "heic": self = .image
        case "aif", "aiff", "aifc", "wav", "mp3", "m4a": self = .audio
        case "mpg", "mpeg", "mp2", "mp4", "m4v", "avi", "mov": self = .video
        default: self = .other
        }
    }
}

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

    public init(eventId: TelemetryEventID, type: TelemetryEventType, timestampMicros: Int64, notificationId: String? = nil,
                category: String, actionIdentifier: String? = nil, userTextLength: Int? = nil, hasMedia: Bool = false,
                mediaTypes: [AttachmentKind] = [], mediaRequested: Bool? = nil, categoryRegistered: Bool? = nil,
                campaign: String? = nil, variant: String? = nil, deliveredAtMicros: Int64? = nil) {
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
    }

    /// The event as the wire carries it (`WireEvent`, the one encoder of `POST /v1/batch`).
    public var wire: WireEvent {
        WireEvent(eventId: eventId, type: type == .delivered ? .delivered : .response, timestamp: Timestamp(microseconds: timestampMicros),
                  notificationId: notificationId, category: category, actionIdentifier: actionIdentifier,
                  userTextLength: userTextLength.map(Int64.init), hasMedia: hasMedia, mediaTypes: mediaTypes.map(\.rawValue),
                  mediaRequested: mediaRequested, categoryRegistered: categoryRegistered, campaign: campaign, variant: variant,
                  deliveredAt: deliveredAtMicros.map { Timestamp(microseconds: $0) })
    }

    /// The event's object in `POST /v1/batch` (README.md, "`POST /v1/batch`"); absent values are left out.
    public var json: JSONValue { wire.json }
}

// MARK: - Plain values mirroring UserNotifications

/// Mirrors `UNNotificationAttachment`: only what classifies it, never its URL or contents.
public struct AttachmentValues: Sendable, Equatable {
    public var typeIdentifier: String?
    public var fileExtension: String?
    public init(typeIdentifier: String?, fileExtension: String? = nil) {
        self.typeIdentifier = typeIdentifier
        self.fileExtension = fileExtension
    }
}

/// Mirrors `UNNotificationContent`. Title, subtitle and body are deliberately absent: the SDK
/// never sees them. `userInfo` holds top-level scalar values; only configured keys are read.
public struct NotificationContentValues: Sendable, Equatable {
    public var categoryIdentifier: String
    public var attachments: [AttachmentValues]
    public var userInfo: [String: String]

    public init(categoryIdentifier: String, attachments: [AttachmentValues] = [], userInfo: [String: String] = [:]) {
        self.categoryIdentifier = categoryIdentifier
        self.attachments = attachments
        self.userInfo = userInfo
    }
}

/// Mirrors `UNNotificationResponse` (and `UNTextInputNotificationResponse`): the reply's length
/// only, so the text itself never enters the SDK.
public struct NotificationResponseValues: Sendable, Equatable {
    public var actionIdentifier: String
    /// `response.notification.request.identifier` (the apns-id for a remote notification).
    public var notificationId: String?
    /// `response.notification.date`.
    public var deliveryDate: Date?
    public var content: NotificationContentValues
    public var userTextLength: Int?

    public init(actionIdentifier: String, notificationId: String? = nil, deliveryDate: Date? = nil,
                content: NotificationContentValues, userTextLength: Int? = nil) {
        self.actionIdentifier = actionIdentifier
        self.notificationId = notificationId
        self.deliveryDate = deliveryDate
        self.content = content
        self.userTextLength = userTextLength
    }

    /// The length recorded for a text reply: user-perceived characters (grapheme clusters), so an
    /// emoji counts once. The adapter calls this and drops the text.
    public static func textLength(of userText: String) -> Int { userText.count }
}

/// The system action identifiers iOS produces itself.
public enum SystemActionIdentifier {
    public static let open = "com.apple.UNNotificationDefaultActionIdentifier"
    public static let dismiss = "com.apple.UNNotificationDismissActionIdentifier"
}

/// Which user-info keys carry campaign, variant and a media request. Push backends differ, so
/// these are configuration, not constants.
public struct UserInfoKeys: Sendable, Equatable {
    public var campaign: String?
    public var variant: String?
    /// A key whose presence means the payload asked for media (the Service Extension downloads it).
    public var mediaRequest: String?

    public init(campaign: String? = "campaign", variant: String? = "variant", mediaRequest: String? = "media-url") {
        self.campaign = campaign
        self.variant = variant
        self.mediaRequest = mediaRequest
    }
}

/// Turns plain values into events. Pure: the id and time are arguments, so every rule is tested.
public struct EventBuilder: Sendable {
    public var keys: UserInfoKeys

    public init(keys: UserInfoKeys = UserInfoKeys()) { self.keys = keys }

    /// `registeredCategories` is the set from `getNotificationCategories` when it is known; the
    /// event then says whether iOS could show the category's buttons.
    public func delivered(_ content: NotificationContentValues, notificationId: String?, id: TelemetryEventID,
                          at time: Date, registeredCategories: Set<String>?) -> TelemetryEvent {
        var event = base(content, type: .delivered, id: id, at: time, registeredCategories: registeredCategories)
        event.notificationId = notificationId
        return event
    }

    public func response(_ response: NotificationResponseValues, id: TelemetryEventID, at time: Date,
                         registeredCategories: Set<String>?) -> TelemetryEvent {
        var event = base(response.content, type: .response, id: id, at: time, registeredCategories: registeredCategories)
        event.notificationId = response.notificationId
        event.actionIdentifier = response.actionIdentifier
        event.userTextLength = response.userTextLength.map { max(0, $0) }
        event.deliveredAtMicros = response.deliveryDate.map { Timestamp($0).microseconds }
        return event
    }

    private func base(_ content: NotificationContentValues, type: TelemetryEventType, id: TelemetryEventID, at time: Date,
                      registeredCategories: Set<String>?) -> TelemetryEvent {
        let kinds = Set(content.attachments.map { AttachmentKind(typeIdentifier: $0.typeIdentifier, fileExtension: $0.fileExtension) })
        let category = content.categoryIdentifier
        func value(_ key: String?) -> String? {
            guard let key, let v = content.userInfo[key], !v.isEmpty else { return nil }
            return v
        }
        return TelemetryEvent(
            eventId: id, type: type, timestampMicros: Timestamp(time).microseconds, category: category,
            hasMedia: !content.attachments.isEmpty, mediaTypes: kinds.sorted(),
            mediaRequested: keys.mediaRequest.map { content.userInfo[$0] != nil },
            // Exact, case-sensitive match, as iOS looks categories up. No category: nothing to register.
            categoryRegistered: category.isEmpty ? nil : registeredCategories.map { $0.contains(category) },
            campaign: value(keys.campaign), variant: value(keys.variant))
    }
}
