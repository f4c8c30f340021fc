// Category mismatch detection: the notifications iOS silently showed without buttons because the
// payload named a category the app never registered (docs/domain.md, "Registration and the silent
// drop"), plus the smaller manifest inconsistencies around it. Pure rules over usage tallies and
// manifests; the store supplies both.
//
// This file holds the shared types. The rules are split by family: MismatchEventRules.swift (what
// one usage line means: unknown, miscased or misspelt categories, missing manifests, unregistered
// actions, impossible dismisses; IdentifierDistance.swift measures the spelling), and
// MismatchWindowRules.swift (what needs the whole window: dead categories, platform caveats).
// MismatchDetector.swift turns them into findings.

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
    public var severity: FindingSeverity
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

    public init(kind: MismatchKind, severity: FindingSeverity, category: String, action: String? = nil, count: Int64,
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

/// The tunable parts of detection. Defaults follow the issue; severities and caveats are data.
public struct MismatchRules: Sendable, Equatable {
    /// Largest edit distance (optimal string alignment, after case folding) for a near miss.
    public var maxEditDistance: Int = 2
    public var severities: [MismatchKind: FindingSeverity] = [
        .unknownCategory: .error, .caseMismatch: .error, .nearMiss: .error,
        .unregisteredAction: .warning, .impossibleDismiss: .warning, .noManifest: .warning,
        .deadCategory: .info, .platformCaveat: .info,
    ]
    public var platformCaveats: [PlatformCaveat] = PlatformCaveat.defaults

    public init() {}

    public func severity(_ kind: MismatchKind) -> FindingSeverity { severities[kind] ?? .warning }

    /// The distance allowed between identifiers of this length: short identifiers get less slack,
    /// or every two-letter category would be a near miss of every other.
    func allowedDistance(_ a: String, _ b: String) -> Int {
        let shorter = min(a.unicodeScalars.count, b.unicodeScalars.count)
        return min(maxEditDistance, max(0, (shorter - 1) / 2))
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

/// How a window [since, until) is read from the rollups: whole UTC days from the daily one, the
/// partial days around them from the hourly one. `since` is rounded down to its hour.
public struct MismatchWindow: Sendable, Equatable {
    public var hourStart: Timestamp
    public var fullDaysStart: Timestamp
    public var fullDaysEnd: Timestamp
    public var until: Timestamp

    public init(since: Timestamp, until: Timestamp) {
        let hour = RollupDeltas.microsecondsPerHour, day = RollupDeltas.microsecondsPerDay
        let start = RollupDeltas.floor(since.microseconds, hour)
        let end = max(until.microseconds, start)
        let firstDay = RollupDeltas.floor(start + day - 1, day)
        let lastDay = RollupDeltas.floor(end, day)
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
