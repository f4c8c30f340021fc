/// An action as registered in a `UNNotificationCategory`.
public struct RegisteredAction: Sendable, Equatable, Hashable {
    public var identifier: String
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

/// A registered `UNNotificationCategory`.
public struct RegisteredCategory: Sendable, Equatable, Hashable {
    public var identifier: String
    public var title: String?
    /// Apple's option names: customDismissAction, allowInCarPlay, hiddenPreviewsShowTitle, …
    public var options: [String]
    /// In registration order (iOS shows them in this order).
    public var actions: [RegisteredAction]

    public init(identifier: String, title: String? = nil, options: [String] = [], actions: [RegisteredAction] = []) {
        self.identifier = identifier
        self.title = title
        self.options = options
        self.actions = actions
    }
}

/// The full set of categories an app version registered, as posted to `/v1/categories`.
public struct CategoryManifest: Sendable, Equatable {
    public var appVersion: String
    public var categories: [RegisteredCategory]

    public init(appVersion: String, categories: [RegisteredCategory]) {
        self.appVersion = appVersion
        self.categories = categories
    }

    /// The canonical form the collector hashes: categories sorted by identifier (the registered
    /// set has no order), actions in registration order, option lists sorted and unique.
    public var canonicalJSON: JSONOutput {
        let sorted = categories.sorted { $0.identifier.utf8.lexicographicallyPrecedes($1.identifier.utf8) }
        func options(_ list: [String]) -> JSONOutput { .array(Set(list).sorted().map { .string($0) }) }
        return .object([
            ("appVersion", .string(appVersion)),
            ("categories", .array(sorted.map { category in
                .object([
                    ("identifier", .string(category.identifier)),
                    ("title", .optional(category.title)),
                    ("options", options(category.options)),
                    ("actions", .array(category.actions.map { action in
                        .object([
                            ("identifier", .string(action.identifier)),
                            ("title", .optional(action.title)),
                            ("options", options(action.options)),
                            ("textInput", .bool(action.textInput)),
                        ])
                    })),
                ])
            })),
        ])
    }

    /// Lower-case hex SHA-256 of the canonical JSON. Registering the same categories in another
    /// order gives the same hash, so a relaunch posts nothing.
    public var contentHash: String { SHA256Digest.hex(canonicalJSON.bytes) }

    /// The set of registered identifiers, for `categoryRegistered`.
    public var identifiers: Set<String> { Set(categories.map(\.identifier)) }
}
