/// The two action identifiers iOS itself produces (UNNotificationDefaultActionIdentifier and
/// UNNotificationDismissActionIdentifier). Every other identifier is one the app registered.
public enum SystemAction {
    public static let open = "com.apple.UNNotificationDefaultActionIdentifier"
    public static let dismiss = "com.apple.UNNotificationDismissActionIdentifier"

    public static func isSystem(_ identifier: String) -> Bool { identifier == open || identifier == dismiss }
}
