import Foundation

/// The system action identifiers iOS produces itself.
public enum SystemActionIdentifier {
    public static let open = "com.apple.UNNotificationDefaultActionIdentifier"
    public static let dismiss = "com.apple.UNNotificationDismissActionIdentifier"
}
