import Foundation

/// Mirrors `UNNotificationAttachment`: only what classifies it, never its URL or contents.
public struct AttachmentValues: Sendable, Equatable {
    public var typeIdentifier: String?
    public var fileExtension: String?
    public init(typeIdentifier: String?, fileExtension: String? = nil) {
        self.typeIdentifier = typeIdentifier
        self.fileExtension = fileExtension
    }
}
