/// The manifests an app has posted, as detection needs them. Categories are keyed by their
/// identifier's bytes: iOS does not find a category registered in another normal form (NSString
/// compares literally), so neither does detection (docs/mismatches.md, "Identifiers are compared
/// by their bytes").
public struct ManifestIndex: Sendable {
    public let byVersion: [String: Manifest]
    /// Every version's categories merged (actions and options united): what a `sent` event or any
    /// event without an app version is checked against, since its device's version is unknown.
    public let union: [Bytewise<String>: ManifestCategory]
    /// Each version's categories by identifier (the first of a repeated one), made once per index:
    /// the collector looks one up for every event it stores (`MismatchMetrics`), and building it
    /// per event took 16 % of the collector's CPU at a real app's shape (docs/ingestion.md,
    /// "The collector's CPU").
    private let categoriesByVersion: [String: [Bytewise<String>: ManifestCategory]]

    public init(_ manifests: [String: Manifest]) {
        byVersion = manifests
        categoriesByVersion = manifests.mapValues { manifest in
            Dictionary(manifest.categories.map { (Bytewise($0.identifier), $0) }, uniquingKeysWith: { first, _ in first })
        }
        var union: [Bytewise<String>: ManifestCategory] = [:]
        for version in manifests.keys.sorted() {
            for category in manifests[version]!.categories {
                let identifier = Bytewise(category.identifier)
                if var merged = union[identifier] {
                    for option in category.options where !merged.options.contains(option) { merged.options.append(option) }
                    for action in category.actions where !merged.actions.contains(where: { String.sameBytes($0.identifier, action.identifier) }) {
                        merged.actions.append(action)
                    }
                    union[identifier] = merged
                } else {
                    union[identifier] = category
                }
            }
        }
        self.union = union
    }

    /// The categories an event of this version is checked against, or nil when the version never
    /// posted a manifest (or it is the unknown version '' and no version ever posted one).
    func reference(for version: String) -> [Bytewise<String>: ManifestCategory]? {
        if let categories = categoriesByVersion[version] { return categories }
        return version.isEmpty && !union.isEmpty ? union : nil
    }
}
