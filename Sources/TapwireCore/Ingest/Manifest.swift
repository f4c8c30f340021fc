/// What the collector reads into a registered manifest (the model and its canonical form are the
/// wire format, in TapwireWire).
extension ManifestAction {
    public var isDestructive: Bool { options.contains("destructive") }
}

extension ManifestCategory {
    /// Only with this option does iOS report UNNotificationDismissActionIdentifier, so only then is
    /// a dismiss rate measurable.
    public var hasCustomDismissAction: Bool { options.contains("customDismissAction") }
    public var allowsCarPlay: Bool { options.contains("allowInCarPlay") }
}

extension Manifest {
    /// The first entry of this identifier, by its bytes as iOS matches it (`Bytewise`).
    public func category(_ identifier: String) -> ManifestCategory? { categories.first { String.sameBytes($0.identifier, identifier) } }

    public static let knownCategoryOptions: Set<String> = [
        "customDismissAction", "allowInCarPlay", "hiddenPreviewsShowTitle", "hiddenPreviewsShowSubtitle",
        "hiddenPreviewsBodyPlaceholder", "allowAnnouncement",
    ]
    public static let knownActionOptions: Set<String> = ["foreground", "destructive", "authenticationRequired"]
}
