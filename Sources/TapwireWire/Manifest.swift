/// The full set of categories an app version registers with setNotificationCategories(_:), as the
/// SDK posts it to `/v1/categories` and the collector stores it.
public struct Manifest: Sendable, Equatable {
    public var appVersion: String
    public var categories: [ManifestCategory]

    public init(appVersion: String, categories: [ManifestCategory]) {
        self.appVersion = appVersion
        self.categories = categories
    }

    /// The canonical JSON: categories sorted by identifier (the registered set has no order),
    /// actions in registration order (which iOS uses), option lists sorted and unique.
    public var canonicalJSON: JSONValue {
        let sorted = categories.sorted { $0.identifier.utf8.lexicographicallyPrecedes($1.identifier.utf8) }
        func options(_ list: [String]) -> JSONValue { .array(Set(list).sorted().map { .string($0) }) }
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

    /// Lower-case hex SHA-256 of the canonical JSON. The SDK and the collector compute it with this
    /// one function, so both sides agree; registering the same categories in another order gives
    /// the same hash, so a relaunch posts nothing.
    public var contentHash: String { SHA256.hex(canonicalJSON.serializedBytes()) }
}
