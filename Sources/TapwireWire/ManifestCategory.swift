/// A registered UNNotificationCategory.
public struct ManifestCategory: Sendable, Equatable, Hashable {
    public var identifier: String
    public var title: String?
    /// Apple's option names: customDismissAction, allowInCarPlay, hiddenPreviewsShowTitle, …
    public var options: [String]
    /// In registration order (iOS shows them in this order).
    public var actions: [ManifestAction]

    public init(identifier: String, title: String? = nil, options: [String] = [], actions: [ManifestAction] = []) {
        self.identifier = identifier
        self.title = title
        self.options = options
        self.actions = actions
    }
}
