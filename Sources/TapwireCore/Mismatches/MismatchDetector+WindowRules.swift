// The rules that need the whole window rather than one event: dead_category (registered, never
// seen) and platform_caveat (seen on a platform that hides some buttons).

extension MismatchDetector {
    /// `dead_category`: a category a version registers that none of its events named in the window.
    func deadCategories(index: ManifestIndex, activeVersions: Set<String>, seen: Set<Bytewise<String>>) -> [MismatchFinding] {
        var out: [MismatchFinding] = []
        for version in activeVersions.sorted() {
            guard let manifest = index.byVersion[version] else { continue }
            for category in manifest.categories where !seen.contains(Bytewise(category.identifier)) {
                out.append(MismatchFinding(kind: .deadCategory, severity: rules.severity(.deadCategory), category: category.identifier,
                                           count: 0, appVersions: [version], platforms: [], firstSeen: nil, lastSeen: nil,
                                           message: ""))
            }
        }
        return out.map { var f = $0; f.message = message(for: f); return f }
    }

    /// `platform_caveat`: events of a category on a platform known to hide some of its buttons
    /// (`rules.platformCaveats`), one finding per version, category and affected action.
    func caveats(usage: [CategoryUsage], index: ManifestIndex) -> [MismatchFinding] {
        var out: [MismatchFinding] = []
        for caveat in rules.platformCaveats {
            struct Key: Hashable {
                var version: String
                @Bytewise var category: String
                @Bytewise var action: String?
            }
            var groups: [Key: (tally: MismatchTally, first: Timestamp, last: Timestamp)] = [:]
            for row in usage where row.count > 0 {
                if caveat.observedOnly, row.platform.lowercased() != caveat.platform.lowercased() { continue }
                guard let reference = index.reference(for: row.appVersion), let category = reference[Bytewise(row.category)] else { continue }
                if let option = caveat.requiredCategoryOption, !category.options.contains(option) { continue }
                let actions: [String?]
                switch caveat.scope {
                case .textInputActions: actions = category.actions.filter(\.textInput).map(\.identifier)
                case .categoryActions: actions = category.actions.isEmpty ? [] : [nil]
                }
                // Only notifications count here: a response is already inside a delivery.
                guard row.type != .response || caveat.scope == .categoryActions else { continue }
                for action in actions {
                    let key = Key(version: row.appVersion, category: row.category, action: action)
                    var entry = groups[key] ?? (MismatchTally(), row.firstSeen, row.lastSeen)
                    entry.tally.add(row.type, row.count)
                    entry.first = min(entry.first, row.firstSeen)
                    entry.last = max(entry.last, row.lastSeen)
                    groups[key] = entry
                }
            }
            for (key, entry) in groups {
                var f = MismatchFinding(kind: .platformCaveat, severity: rules.severity(.platformCaveat), category: key.category,
                                        action: key.action, count: entry.tally.notifications, tally: entry.tally,
                                        appVersions: [key.version], platforms: [caveat.platform], firstSeen: entry.first,
                                        lastSeen: entry.last, message: "")
                f.message = "\(caveat.platform): \(caveat.note)."
                out.append(f)
            }
        }
        return out
    }
}
