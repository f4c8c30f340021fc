// Category mismatch detection: the notifications iOS silently showed without buttons because the
// payload named a category the app never registered (docs/domain.md, "Registration and the silent
// drop"), plus the smaller manifest inconsistencies around it. Pure rules over
// usage tallies and manifests; the store supplies both.

/// What kind of problem a finding is. Raw values are the stable names in every output.
public enum MismatchKind: String, Sendable, CaseIterable, Hashable, Comparable {
    case unknownCategory = "unknown_category"
    case caseMismatch = "case_mismatch"
    case nearMiss = "near_miss"
    case unregisteredAction = "unregistered_action"
    case impossibleDismiss = "impossible_dismiss"
    case noManifest = "no_manifest"
    case deadCategory = "dead_category"
    case platformCaveat = "platform_caveat"

    public static func < (a: MismatchKind, b: MismatchKind) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }
}

/// How urgently a finding needs a person. `error` means users saw notifications without their
/// buttons; `warning` means the data or the manifest is wrong; `info` is context.
public enum MismatchSeverity: String, Sendable, CaseIterable, Hashable, Comparable {
    case info
    case warning
    case error

    private var rank: Int {
        switch self {
        case .info: return 0
        case .warning: return 1
        case .error: return 2
        }
    }

    public static func < (a: MismatchSeverity, b: MismatchSeverity) -> Bool { a.rank < b.rank }

    /// Accepts the names case-insensitively, and `critical` as an alias of `error`.
    public init?(name: String) {
        let lower = name.lowercased()
        if lower == "critical" { self = .error; return }
        guard let value = MismatchSeverity(rawValue: lower) else { return nil }
        self = value
    }
}

/// Tri-state of the device's own `categoryRegistered` flag.
public enum RegistrationReport: Int16, Sendable, Hashable {
    case unregistered = 0
    case registered = 1
    case notReported = -1

    public init(_ flag: Bool?) {
        switch flag {
        case true?: self = .registered
        case false?: self = .unregistered
        case nil: self = .notReported
        }
    }
}

/// One line of the usage rollup summed over a window: how many events of one shape there were.
/// `action` is nil for `delivered` and `sent` events.
public struct CategoryUsage: Sendable, Hashable {
    public var appVersion: String
    public var platform: String
    public var type: EventType
    public var category: String
    public var action: String?
    public var registration: RegistrationReport
    public var count: Int64
    public var firstSeen: Timestamp
    public var lastSeen: Timestamp

    public init(appVersion: String, platform: String, type: EventType, category: String, action: String? = nil,
                registration: RegistrationReport = .notReported, count: Int64, firstSeen: Timestamp, lastSeen: Timestamp) {
        self.appVersion = appVersion
        self.platform = platform
        self.type = type
        self.category = category
        self.action = action.flatMap { $0.isEmpty ? nil : $0 }
        self.registration = registration
        self.count = count
        self.firstSeen = firstSeen
        self.lastSeen = lastSeen
    }
}

/// Event tallies behind a finding, so `count` can be explained.
public struct MismatchTally: Sendable, Hashable {
    public var delivered: Int64 = 0
    public var sent: Int64 = 0
    public var responses: Int64 = 0
    public init(delivered: Int64 = 0, sent: Int64 = 0, responses: Int64 = 0) {
        self.delivered = delivered
        self.sent = sent
        self.responses = responses
    }

    mutating func add(_ type: EventType, _ count: Int64) {
        switch type {
        case .delivered: delivered += count
        case .sent: sent += count
        case .response: responses += count
        }
    }

    static func + (a: MismatchTally, b: MismatchTally) -> MismatchTally {
        MismatchTally(delivered: a.delivered + b.delivered, sent: a.sent + b.sent, responses: a.responses + b.responses)
    }

    /// Notifications affected: deliveries are the denominator; the backend's `sent` count stands in
    /// when no device reported a delivery; responses are the last resort (each one proves a
    /// notification was shown). Never a sum, which would count one notification two or three times.
    public var notifications: Int64 { delivered > 0 ? delivered : (sent > 0 ? sent : responses) }
}

/// One problem, over one or more app versions and platforms.
public struct MismatchFinding: Sendable, Equatable {
    public var kind: MismatchKind
    public var severity: MismatchSeverity
    public var category: String
    public var action: String?
    /// Notifications affected for category kinds (see `MismatchTally.notifications`); responses for
    /// `unregistered_action` and `impossible_dismiss`; 0 for `dead_category`.
    public var count: Int64
    public var tally: MismatchTally
    public var appVersions: [String]
    public var platforms: [String]
    /// nil only for `dead_category` (nothing was seen) and caveats derived from the manifest alone.
    public var firstSeen: Timestamp?
    public var lastSeen: Timestamp?
    /// A registered identifier to use instead (case mismatch, near miss, a near action), else nil.
    public var suggestion: String?
    /// One sentence a person can act on: what happened and how to fix it.
    public var message: String
    /// An unknown category that the manifest does register but devices report as not registered:
    /// the set on the device was replaced.
    public var wipedOnDevice: Bool

    public init(kind: MismatchKind, severity: MismatchSeverity, category: String, action: String? = nil, count: Int64,
                tally: MismatchTally = MismatchTally(), appVersions: [String], platforms: [String],
                firstSeen: Timestamp?, lastSeen: Timestamp?, suggestion: String? = nil, message: String = "",
                wipedOnDevice: Bool = false) {
        self.wipedOnDevice = wipedOnDevice
        self.kind = kind
        self.severity = severity
        self.category = category
        self.action = action
        self.count = count
        self.tally = tally
        self.appVersions = appVersions
        self.platforms = platforms
        self.firstSeen = firstSeen
        self.lastSeen = lastSeen
        self.suggestion = suggestion
        self.message = message
    }
}

/// A platform behaviour that makes some buttons or fields absent there. Data, not a constant in
/// the rules, because the sources disagree (docs/domain.md, "Platforms").
public struct PlatformCaveat: Sendable, Equatable {
    public enum Scope: Sendable, Equatable {
        /// Each text-input action of a category: the platform shows the buttons but no text field.
        case textInputActions
        /// The category's action buttons as a whole.
        case categoryActions
    }

    public var platform: String
    public var scope: Scope
    /// The caveat only applies to categories registered with this option (e.g. allowInCarPlay).
    public var requiredCategoryOption: String?
    /// True when it applies only to events the platform itself reported (its `context.platform`);
    /// false when the platform never reports (CarPlay shows an iPhone's notifications).
    public var observedOnly: Bool
    public var note: String

    public init(platform: String, scope: Scope, requiredCategoryOption: String? = nil, observedOnly: Bool, note: String) {
        self.platform = platform
        self.scope = scope
        self.requiredCategoryOption = requiredCategoryOption
        self.observedOnly = observedOnly
        self.note = note
    }

    public static let defaults: [PlatformCaveat] = [
        PlatformCaveat(platform: "CarPlay", scope: .textInputActions, requiredCategoryOption: "allowInCarPlay", observedOnly: false,
                       note: "CarPlay shows category buttons but never text input, so this text-input action is hidden there"),
        PlatformCaveat(platform: "watchOS", scope: .categoryActions, observedOnly: true,
                       note: "watchOS may show this category without its action buttons (sources disagree by watchOS version); read its engagement per platform"),
    ]
}

/// The tunable parts of detection. Defaults follow the issue; severities and caveats are data.
public struct MismatchRules: Sendable, Equatable {
    /// Largest edit distance (optimal string alignment, after case folding) for a near miss.
    public var maxEditDistance: Int = 2
    public var severities: [MismatchKind: MismatchSeverity] = [
        .unknownCategory: .error, .caseMismatch: .error, .nearMiss: .error,
        .unregisteredAction: .warning, .impossibleDismiss: .warning, .noManifest: .warning,
        .deadCategory: .info, .platformCaveat: .info,
    ]
    public var platformCaveats: [PlatformCaveat] = PlatformCaveat.defaults

    public init() {}

    public func severity(_ kind: MismatchKind) -> MismatchSeverity { severities[kind] ?? .warning }

    /// The distance allowed between identifiers of this length: short identifiers get less slack,
    /// or every two-letter category would be a near miss of every other.
    func allowedDistance(_ a: String, _ b: String) -> Int {
        let shorter = min(a.unicodeScalars.count, b.unicodeScalars.count)
        return min(maxEditDistance, max(0, (shorter - 1) / 2))
    }
}

/// Identifier similarity: exact-but-for-case, then edit distance.
public enum IdentifierDistance {
    /// Optimal string alignment distance (Levenshtein plus adjacent transposition as one edit) over
    /// Unicode scalars; stops early and returns `limit + 1` once the distance must exceed `limit`.
    public static func distance(_ a: String, _ b: String, limit: Int = .max) -> Int {
        let x = Array(a.unicodeScalars), y = Array(b.unicodeScalars)
        if abs(x.count - y.count) > limit { return limit == .max ? limit : limit + 1 }
        if x.isEmpty { return y.count }
        if y.isEmpty { return x.count }
        var previous2 = [Int](repeating: 0, count: y.count + 1)
        var previous = Array(0...y.count)
        var current = [Int](repeating: 0, count: y.count + 1)
        for i in 1...x.count {
            current[0] = i
            var rowMin = current[0]
            for j in 1...y.count {
                let cost = x[i - 1] == y[j - 1] ? 0 : 1
                var d = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, x[i - 1] == y[j - 2], x[i - 2] == y[j - 1] { d = min(d, previous2[j - 2] + 1) }
                current[j] = d
                rowMin = min(rowMin, d)
            }
            if rowMin > limit { return limit + 1 }
            (previous2, previous, current) = (previous, current, previous2)
        }
        return previous[y.count]
    }

    public enum Match: Sendable, Equatable {
        case caseOnly(String)
        case near(String, distance: Int)
    }

    /// The registered identifier `candidate` was most likely meant to be, if any. Case-only matches
    /// win; then the smallest distance; ties go to the identifier first in byte order, so the
    /// answer never depends on dictionary order.
    public static func closest(to candidate: String, among registered: [String], rules: MismatchRules) -> Match? {
        let folded = candidate.lowercased()
        let ordered = registered.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        if let same = ordered.first(where: { $0 != candidate && $0.lowercased() == folded }) { return .caseOnly(same) }
        var best: (String, Int)?
        for name in ordered where name != candidate {
            let allowed = rules.allowedDistance(candidate, name)
            guard allowed > 0 else { continue }
            let d = distance(folded, name.lowercased(), limit: allowed)
            if d <= allowed, best.map({ d < $0.1 }) ?? true { best = (name, d) }
        }
        return best.map { .near($0.0, distance: $0.1) }
    }
}

/// What one usage line means, before lines are merged into findings.
public struct MismatchClassification: Sendable, Hashable {
    public var kind: MismatchKind
    public var category: String
    public var action: String?
    public var suggestion: String?
    /// The device said "not registered" for a category the manifest registers: the set on the
    /// device was replaced (a second setNotificationCategories call, often by another SDK).
    public var wipedOnDevice: Bool

    public init(kind: MismatchKind, category: String, action: String? = nil, suggestion: String? = nil, wipedOnDevice: Bool = false) {
        self.kind = kind
        self.category = category
        self.action = action
        self.suggestion = suggestion
        self.wipedOnDevice = wipedOnDevice
    }
}

/// The manifests an app has posted, as detection needs them.
public struct ManifestIndex: Sendable {
    public let byVersion: [String: Manifest]
    /// Every version's categories merged (actions and options united): what a `sent` event or any
    /// event without an app version is checked against, since its device's version is unknown.
    public let union: [String: ManifestCategory]

    public init(_ manifests: [String: Manifest]) {
        byVersion = manifests
        var union: [String: ManifestCategory] = [:]
        for version in manifests.keys.sorted() {
            for category in manifests[version]!.categories {
                if var merged = union[category.identifier] {
                    for option in category.options where !merged.options.contains(option) { merged.options.append(option) }
                    for action in category.actions where !merged.actions.contains(where: { $0.identifier == action.identifier }) {
                        merged.actions.append(action)
                    }
                    union[category.identifier] = merged
                } else {
                    union[category.identifier] = category
                }
            }
        }
        self.union = union
    }

    /// The categories an event of this version is checked against, or nil when the version never
    /// posted a manifest (or it is the unknown version '' and no version ever posted one).
    func reference(for version: String) -> [String: ManifestCategory]? {
        if let manifest = byVersion[version] {
            return Dictionary(manifest.categories.map { ($0.identifier, $0) }, uniquingKeysWith: { a, _ in a })
        }
        return version.isEmpty && !union.isEmpty ? union : nil
    }
}

/// The detection rules. Checking `sent` events (and any event without an app version): they come
/// from the push backend, which does not know the device's app version, so they are checked
/// against the union of every version's manifest: a category is flagged only when no version
/// registers it, because then every device shows it without buttons. A `sent` event that carries
/// an app version is checked against that version like a device event.
public struct MismatchDetector: Sendable {
    public var rules: MismatchRules

    public init(rules: MismatchRules = MismatchRules()) { self.rules = rules }

    /// What is wrong with events of this shape, if anything (dead categories and platform caveats
    /// need the whole window and are not per-event). Cheap enough to run per stored event.
    public func classify(appVersion: String, type: EventType, category: String, action: String?,
                         registration: RegistrationReport, manifests: ManifestIndex) -> [MismatchClassification] {
        guard !category.isEmpty else { return [] }  // A notification without a category is legitimate.
        guard let reference = manifests.reference(for: appVersion) else {
            // The version never posted a manifest. The device's own "not registered" is still
            // evidence; everything else is unverifiable, said once as no_manifest.
            if registration == .unregistered {
                return [categoryProblem(category, against: manifests.union, registration: registration)]
            }
            return [MismatchClassification(kind: .noManifest, category: category)]
        }
        guard let registered = reference[category] else {
            return [categoryProblem(category, against: reference, registration: registration)]
        }
        if registration == .unregistered {
            return [MismatchClassification(kind: .unknownCategory, category: category, wipedOnDevice: true)]
        }
        guard type == .response, let action, !action.isEmpty else { return [] }
        if action == SystemAction.open { return [] }
        if action == SystemAction.dismiss {
            return registered.hasCustomDismissAction ? [] : [MismatchClassification(kind: .impossibleDismiss, category: category, action: action)]
        }
        let actions = registered.actions.map(\.identifier)
        if actions.contains(action) { return [] }
        var suggestion: String?
        switch IdentifierDistance.closest(to: action, among: actions, rules: rules) {
        case .caseOnly(let name)?, .near(let name, _)?: suggestion = name
        case nil: suggestion = nil
        }
        return [MismatchClassification(kind: .unregisteredAction, category: category, action: action, suggestion: suggestion)]
    }

    private func categoryProblem(_ category: String, against reference: [String: ManifestCategory],
                                 registration: RegistrationReport) -> MismatchClassification {
        if reference[category] != nil {
            return MismatchClassification(kind: .unknownCategory, category: category, wipedOnDevice: registration == .unregistered)
        }
        switch IdentifierDistance.closest(to: category, among: Array(reference.keys), rules: rules) {
        case .caseOnly(let name)?: return MismatchClassification(kind: .caseMismatch, category: category, suggestion: name)
        case .near(let name, _)?: return MismatchClassification(kind: .nearMiss, category: category, suggestion: name)
        case nil: return MismatchClassification(kind: .unknownCategory, category: category)
        }
    }

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
        var seenCategories = Set<String>()
        var activeVersions = Set<String>()
        for row in usage where row.count > 0 {
            seenCategories.insert(row.category)
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
            var category: String
            var action: String?
            var suggestion: String?
            var wiped: Bool
        }
        var order: [Key] = []
        var merged: [Key: MismatchFinding] = [:]
        for f in perVersion {
            let key = Key(kind: f.kind, category: f.category, action: f.action, suggestion: f.suggestion,
                          wiped: f.wipedOnDevice)
            guard var m = merged[key] else {
                merged[key] = f
                order.append(key)
                continue
            }
            m.tally = m.tally + f.tally
            m.appVersions = Array(Set(m.appVersions + f.appVersions)).sorted(by: Self.versionOrder)
            m.platforms = Array(Set(m.platforms + f.platforms)).sorted()
            m.firstSeen = [m.firstSeen, f.firstSeen].compactMap { $0 }.min()
            m.lastSeen = [m.lastSeen, f.lastSeen].compactMap { $0 }.max()
            merged[key] = m
        }
        let detector = MismatchDetector(rules: rules)
        return sorted(order.map { key in
            var m = merged[key]!
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
            if a.category != b.category { return a.category.utf8.lexicographicallyPrecedes(b.category.utf8) }
            if a.action != b.action { return (a.action ?? "").utf8.lexicographicallyPrecedes((b.action ?? "").utf8) }
            return a.appVersions.lexicographicallyPrecedes(b.appVersions, by: versionOrder)
        }
    }

    /// Numeric-aware version order: 3.10 after 3.9; '' first.
    public static func versionOrder(_ a: String, _ b: String) -> Bool {
        let x = a.split(separator: "."), y = b.split(separator: ".")
        for (p, q) in zip(x, y) where p != q {
            if let i = Int(p), let j = Int(q) { return i < j }
            return p.utf8.lexicographicallyPrecedes(q.utf8)
        }
        return x.count < y.count
    }

    private func deadCategories(index: ManifestIndex, activeVersions: Set<String>, seen: Set<String>) -> [MismatchFinding] {
        var out: [MismatchFinding] = []
        for version in activeVersions.sorted() {
            guard let manifest = index.byVersion[version] else { continue }
            for category in manifest.categories where !seen.contains(category.identifier) {
                out.append(MismatchFinding(kind: .deadCategory, severity: rules.severity(.deadCategory), category: category.identifier,
                                           count: 0, appVersions: [version], platforms: [], firstSeen: nil, lastSeen: nil,
                                           message: ""))
            }
        }
        return out.map { var f = $0; f.message = message(for: f); return f }
    }

    private func caveats(usage: [CategoryUsage], index: ManifestIndex) -> [MismatchFinding] {
        var out: [MismatchFinding] = []
        for caveat in rules.platformCaveats {
            struct Key: Hashable {
                var version: String
                var category: String
                var action: String?
            }
            var groups: [Key: (tally: MismatchTally, first: Timestamp, last: Timestamp)] = [:]
            for row in usage where row.count > 0 {
                if caveat.observedOnly, row.platform.lowercased() != caveat.platform.lowercased() { continue }
                guard let reference = index.reference(for: row.appVersion), let category = reference[row.category] else { continue }
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

/// How a window [since, until) is read from the rollups: whole UTC days from the daily one, the
/// partial days around them from the hourly one. `since` is rounded down to its hour.
public struct MismatchWindow: Sendable, Equatable {
    public var hourStart: Timestamp
    public var fullDaysStart: Timestamp
    public var fullDaysEnd: Timestamp
    public var until: Timestamp

    public init(since: Timestamp, until: Timestamp) {
        let hour: Int64 = 3_600_000_000, day: Int64 = 86_400_000_000
        func floor(_ t: Int64, _ unit: Int64) -> Int64 { t >= 0 ? t / unit * unit : -((-t + unit - 1) / unit) * unit }
        let start = floor(since.microseconds, hour)
        let end = max(until.microseconds, start)
        let firstDay = floor(start + day - 1, day)
        let lastDay = floor(end, day)
        hourStart = Timestamp(microseconds: start)
        self.until = Timestamp(microseconds: end)
        if firstDay < lastDay {
            fullDaysStart = Timestamp(microseconds: firstDay)
            fullDaysEnd = Timestamp(microseconds: lastDay)
        } else {
            fullDaysStart = self.until
            fullDaysEnd = self.until
        }
    }
}
