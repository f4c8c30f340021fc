import Foundation

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
