/// An action the app registered in a category (UNNotificationAction / UNTextInputNotificationAction).
public struct ManifestAction: Sendable, Equatable, Hashable {
    public var identifier: String
    /// Optional human label: identifiers are often opaque (Pushwoosh button ids are "0", "1").
    public var title: String?
    /// Apple's option names: foreground, destructive, authenticationRequired.
    public var options: [String]
    /// A `UNTextInputNotificationAction`.
    public var textInput: Bool

    public init(identifier: String, title: String? = nil, options: [String] = [], textInput: Bool = false) {
        self.identifier = identifier
        self.title = title
        self.options = options
        self.textInput = textInput
    }
}
