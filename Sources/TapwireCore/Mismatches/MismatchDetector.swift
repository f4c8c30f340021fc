// Category mismatch detection: the notifications iOS silently showed without buttons because the
// payload named a category the app never registered (docs/domain.md, "Registration and the silent
// drop"), plus the smaller manifest inconsistencies around it. Pure rules over usage tallies and
// manifests; the store supplies both.
//
// The shared types have a file each beside this one (MismatchFinding, CategoryUsage, ManifestIndex,
// ...). The rules are split by family: MismatchDetector+EventRules.swift (what one usage line
// means: unknown, miscased or misspelt categories, missing manifests, unregistered actions,
// impossible dismisses; IdentifierDistance.swift measures the spelling), and
// MismatchDetector+WindowRules.swift (what needs the whole window: dead categories, platform
// caveats). This file turns them into findings.

/// The detection rules. Checking `sent` events (and any event without an app version): they come
/// from the push backend, which does not know the device's app version, so they are checked
/// against the union of every version's manifest: a category is flagged only when no version
/// registers it, because then every device shows it without buttons. A `sent` event that carries
/// an app version is checked against that version like a device event.
public struct MismatchDetector: Sendable {
    public var rules: MismatchRules

    public init(rules: MismatchRules = MismatchRules()) { self.rules = rules }

    /// Findings for each app version separately: the unit the webhook announces once.
    public func versionFindings(usage: [CategoryUsage], manifests: [String: Manifest]) -> [MismatchFinding] {
        let index = ManifestIndex(manifests)
        struct Key: Hashable {
            var classification: MismatchClassification
            var version: String
        }
        struct Accumulator {
            var tally = MismatchTally()
            var platforms = Set<String>()
            var first: Timestamp?
            var last: Timestamp?
            mutating func add(_ row: CategoryUsage) {
                tally.add(row.type, row.count)
                platforms.insert(row.platform)
                first = min(first ?? row.firstSeen, row.firstSeen)
                last = max(last ?? row.lastSeen, row.lastSeen)
            }
        }
        var groups: [Key: Accumulator] = [:]
        var seenCategories = Set<Bytewise<String>>()
        var activeVersions = Set<String>()
        for row in usage where row.count > 0 {
            seenCategories.insert(Bytewise(row.category))
            activeVersions.insert(row.appVersion)
            for c in classify(appVersion: row.appVersion, type: row.type, category: row.category, action: row.action,
                              registration: row.registration, manifests: index) {
                groups[Key(classification: c, version: row.appVersion), default: Accumulator()].add(row)
            }
        }
        var out: [MismatchFinding] = []
        for (key, acc) in groups {
            let c = key.classification
            let count = (c.kind == .unregisteredAction || c.kind == .impossibleDismiss) ? acc.tally.responses : acc.tally.notifications
            out.append(MismatchFinding(kind: c.kind, severity: rules.severity(c.kind), category: c.category, action: c.action,
                                       count: count, tally: acc.tally, appVersions: [key.version], platforms: acc.platforms.sorted(),
                                       firstSeen: acc.first, lastSeen: acc.last, suggestion: c.suggestion,
                                       wipedOnDevice: c.wipedOnDevice))
        }
        out = out.map { var f = $0; f.message = message(for: f); return f }
        out += deadCategories(index: index, activeVersions: activeVersions, seen: seenCategories)
        out += caveats(usage: usage, index: index)
        return Self.sorted(out)
    }

    /// Findings merged across app versions: one per (kind, category, action, suggestion).
    public func findings(usage: [CategoryUsage], manifests: [String: Manifest]) -> [MismatchFinding] {
        Self.merge(versionFindings(usage: usage, manifests: manifests), rules: rules)
    }

    static func merge(_ perVersion: [MismatchFinding], rules: MismatchRules) -> [MismatchFinding] {
        struct Key: Hashable {
            var kind: MismatchKind
            @Bytewise var category: String
            @Bytewise var action: String?
            @Bytewise var suggestion: String?
            var wiped: Bool
        }
        var order: [Key] = []
        var merged: [Key: MismatchFinding] = [:]
        // The versions and platforms are gathered first and sorted once per finding: sorting the
        // union again at every merge cost most of a report's findings at forty versions
        // (docs/benchmarks.md, "The findings' version sort").
        var versions: [Key: Set<String>] = [:]
        var platforms: [Key: Set<String>] = [:]
        for f in perVersion {
            let key = Key(kind: f.kind, category: f.category, action: f.action, suggestion: f.suggestion,
                          wiped: f.wipedOnDevice)
            versions[key, default: []].formUnion(f.appVersions)
            platforms[key, default: []].formUnion(f.platforms)
            guard var m = merged[key] else {
                merged[key] = f
                order.append(key)
                continue
            }
            m.tally = m.tally + f.tally
            m.firstSeen = [m.firstSeen, f.firstSeen].compactMap { $0 }.min()
            m.lastSeen = [m.lastSeen, f.lastSeen].compactMap { $0 }.max()
            merged[key] = m
        }
        let detector = MismatchDetector(rules: rules)
        return sorted(order.map { key in
            var m = merged[key]!
            m.appVersions = sortedVersions(versions[key]!)
            m.platforms = platforms[key]!.sorted()
            switch m.kind {
            case .unregisteredAction, .impossibleDismiss: m.count = m.tally.responses
            case .deadCategory: m.count = 0
            default: m.count = m.tally.notifications
            }
            m.message = detector.message(for: m)
            return m
        })
    }

    /// Most severe first, then most affected, then by name, so every output is stable.
    static func sorted(_ findings: [MismatchFinding]) -> [MismatchFinding] {
        findings.sorted { a, b in
            if a.severity != b.severity { return a.severity > b.severity }
            if a.count != b.count { return a.count > b.count }
            if a.kind != b.kind { return a.kind < b.kind }
            if !String.sameBytes(a.category, b.category) { return a.category.utf8.lexicographicallyPrecedes(b.category.utf8) }
            if !String?.sameBytes(a.action, b.action) { return (a.action ?? "").utf8.lexicographicallyPrecedes((b.action ?? "").utf8) }
            return a.appVersions.lexicographicallyPrecedes(b.appVersions, by: versionOrder)
        }
    }

    /// Numeric-aware version order: 3.10 after 3.9; '' first.
    public static func versionOrder(_ a: String, _ b: String) -> Bool {
        componentsPrecede(components(a), components(b))
    }

    /// `versionOrder`, with each version split once rather than at every comparison.
    static func sortedVersions(_ versions: Set<String>) -> [String] {
        versions.map { ($0, components($0)) }
            .sorted { componentsPrecede($0.1, $1.1) }
            .map(\.0)
    }

    /// Every component, empty ones included, so that "1..2" and ".1" stay apart from "1.2" and "1".
    private static func components(_ version: String) -> [Substring] {
        version.split(separator: ".", omittingEmptySubsequences: false)
    }

    /// A total order on components, so that distinct versions never tie and no three form a
    /// cycle (a sort is then stable whatever order a set hands it): an empty component first
    /// (so '' is the first version), then numbers, by value, then other text (as in Semantic
    /// Versioning); ties by the UTF-8 bytes ("01" before "1", "é" composed apart from decomposed).
    private static func componentsPrecede(_ x: [Substring], _ y: [Substring]) -> Bool {
        func rank(_ c: Substring) -> Int { c.isEmpty ? 0 : Int(c) == nil ? 2 : 1 }
        for (p, q) in zip(x, y) where !p.utf8.elementsEqual(q.utf8) {
            if rank(p) != rank(q) { return rank(p) < rank(q) }
            if let i = Int(p), let j = Int(q), i != j { return i < j }
            return p.utf8.lexicographicallyPrecedes(q.utf8)
        }
        return x.count < y.count
    }

    /// The human sentence for a finding; depends only on its fields, so it can be recomputed after
    /// a merge.
    func message(for f: MismatchFinding) -> String {
        let versions = f.appVersions.map { $0.isEmpty ? "(no app version)" : $0 }.joined(separator: ", ")
        let category = "\"\(f.category)\""
        switch f.kind {
        case .unknownCategory:
            if f.wipedOnDevice {
                return "Devices report \(category) not registered although the manifest of \(versions) registers it: another setNotificationCategories call (often a third-party SDK) replaced the set; register every category in one call."
            }
            return "\(category) is not registered by \(versions), so iOS showed these notifications without buttons; register it or stop sending it."
        case .caseMismatch:
            return "\(category) differs from the registered \"\(f.suggestion ?? "")\" only by case; iOS matches exactly, so these notifications had no buttons. Send \"\(f.suggestion ?? "")\"."
        case .nearMiss:
            return "\(category) is not registered by \(versions) but is close to the registered \"\(f.suggestion ?? "")\"; these notifications had no buttons. Send \"\(f.suggestion ?? "")\"."
        case .unregisteredAction:
            let near = f.suggestion.map { " (did you mean \"\($0)\"?)" } ?? ""
            return "Action \"\(f.action ?? "")\" is not registered in \(category) by \(versions)\(near); the manifest is stale or the identifier changed."
        case .impossibleDismiss:
            return "Dismiss responses arrived for \(category), which \(versions) registers without customDismissAction; iOS only reports a dismiss with that option, so the stored manifest is stale or wrong. Post the current manifest."
        case .noManifest:
            return "App version \(versions) never posted a manifest, so \(category) cannot be verified; have the SDK post its categories (POST /v1/categories) at launch."
        case .deadCategory:
            return "\(category) is registered by \(versions) but no notification named it in this window."
        case .platformCaveat:
            return f.message
        }
    }
}
