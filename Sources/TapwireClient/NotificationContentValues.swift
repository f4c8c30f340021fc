import Foundation

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
