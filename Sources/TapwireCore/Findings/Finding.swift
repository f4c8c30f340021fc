// One model of a finding, whatever rule family produced it: what the outbox announces once, what
// /metrics counts, and what every renderer (JSON, CSV, table, HTML, the webhook's message) shows.
// A family keeps its own facts as the evidence; the kind, severity and subject are common.
//
// The families today: category mismatches (Mismatch.swift, MismatchDetector.swift) and release
// regressions (ReleaseRegression.swift, ReleaseRegressionRule.swift). A third adds a case to
// `FindingKind` and to `FindingEvidence`, an initialiser here, and its rows to FindingsReport
// (docs/architecture.md, "Findings").

/// How urgently a finding needs a person. `error`: users are affected now (notifications shown
/// without their buttons, a button whose use collapsed in a release); `warning`: the data or the
/// manifest is wrong; `info`: context.
public enum FindingSeverity: String, Sendable, CaseIterable, Hashable, Comparable {
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

    public static func < (a: FindingSeverity, b: FindingSeverity) -> Bool { a.rank < b.rank }

    /// Accepts the names case-insensitively, and `critical` as an alias of `error`.
    public init?(name: String) {
        let lower = name.lowercased()
        if lower == "critical" { self = .error; return }
        guard let value = FindingSeverity(rawValue: lower) else { return nil }
        self = value
    }
}

/// The rule family a finding comes from.
public enum FindingFamily: String, Sendable, CaseIterable, Hashable {
    case categoryMismatch = "category_mismatch"
    case releaseRegression = "release_regression"
}

/// What a finding is. `rawValue` is the stable name in every output (`kind`).
public enum FindingKind: Sendable, Hashable, Comparable, CustomStringConvertible {
    case mismatch(MismatchKind)
    /// A category's open, action, text reply or dismissal whose rate fell in the newest app version.
    case engagementRegression
    /// The newest version's manifest no longer has what earlier versions registered: reported,
    /// not compared (its rate falls to nothing by construction).
    case manifestChange

    public static let allCases: [FindingKind] = MismatchKind.allCases.map { .mismatch($0) } + [.engagementRegression, .manifestChange]

    public var rawValue: String {
        switch self {
        case .mismatch(let kind): kind.rawValue
        case .engagementRegression: "engagement_regression"
        case .manifestChange: "manifest_change"
        }
    }

    public init?(rawValue: String) {
        guard let kind = Self.allCases.first(where: { $0.rawValue == rawValue }) else { return nil }
        self = kind
    }

    public var family: FindingFamily {
        if case .mismatch = self { return .categoryMismatch }
        return .releaseRegression
    }

    public var description: String { rawValue }

    public static func < (a: FindingKind, b: FindingKind) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }
}

/// What a finding is about.
public struct FindingSubject: Sendable, Equatable {
    /// The app versions affected ('' is events without one); a regression names its candidate.
    public var appVersions: [String]
    public var category: String
    /// The action identifier, when the finding is about one (Apple's identifiers for opens and
    /// dismissals); nil for a whole category, or for text replies, which span its text-input actions.
    public var action: String?

    public init(appVersions: [String], category: String, action: String? = nil) {
        self.appVersions = appVersions
        self.category = category
        self.action = action
    }
}

/// The family's own facts behind a finding.
public enum FindingEvidence: Sendable, Equatable {
    case mismatch(MismatchFinding)
    case regression(RegressionFinding)
    /// The outcome the candidate's manifest removed, and the versions that registered it.
    case manifestChange(outcome: RegressionOutcome, registeredBy: [String])
}

public struct Finding: Sendable, Equatable {
    public var kind: FindingKind
    public var severity: FindingSeverity
    public var subject: FindingSubject
    public var evidence: FindingEvidence
    /// One sentence a person can act on.
    public var message: String
    /// When it began: a mismatch's first event, a regression's `detectedAt`; nil for a manifest change.
    public var since: Timestamp?

    public init(kind: FindingKind, severity: FindingSeverity, subject: FindingSubject, evidence: FindingEvidence, message: String,
                since: Timestamp?) {
        self.kind = kind
        self.severity = severity
        self.subject = subject
        self.evidence = evidence
        self.message = message
        self.since = since
    }

    public init(_ mismatch: MismatchFinding) {
        self.init(kind: .mismatch(mismatch.kind), severity: mismatch.severity,
                  subject: FindingSubject(appVersions: mismatch.appVersions, category: mismatch.category, action: mismatch.action),
                  evidence: .mismatch(mismatch), message: mismatch.message, since: mismatch.firstSeen)
    }

    /// A flagged series. Severity `error`: the minimum drop is one worth waking someone for. The
    /// message names no figures; each renderer shows them beside it, formatted its way.
    public init(_ regression: RegressionFinding, severity: FindingSeverity = .error) {
        let message = "\(regression.outcome.phrase(category: regression.category)) fell in \(regression.candidateVersion) against "
            + "\(regression.baselineVersions.joined(separator: ", ")): its anytime-valid interval lies wholly below the minimum drop. "
            + "Check what \(regression.candidateVersion) changed in the handler."
        self.init(kind: .engagementRegression, severity: severity,
                  subject: FindingSubject(appVersions: [regression.candidateVersion], category: regression.category,
                                          action: regression.outcome.actionIdentifier),
                  evidence: .regression(regression), message: message, since: Timestamp(microseconds: regression.detectedAt))
    }

    /// An outcome the candidate's manifest removed: `info`, since the manifest says it on purpose.
    public init(removed outcome: RegressionOutcome, category: String, candidateVersion: String, registeredBy: [String]) {
        let message = "\(candidateVersion)'s manifest no longer has \(outcome.noun) in \"\(category)\" (registered by "
            + "\(registeredBy.joined(separator: ", "))): a manifest change, not compared as a regression."
        self.init(kind: .manifestChange, severity: .info,
                  subject: FindingSubject(appVersions: [candidateVersion], category: category, action: outcome.actionIdentifier),
                  evidence: .manifestChange(outcome: outcome, registeredBy: registeredBy), message: message, since: nil)
    }

    /// What the outbox announces once, one per app version. A mismatch is announced per category
    /// (two unregistered actions of one category make one message); a release-regression finding
    /// per outcome, since each is its own broken button.
    public func keys(appId: Int64) -> [FindingKey] {
        let detail: String
        switch evidence {
        case .mismatch: detail = ""
        case .regression(let r): detail = r.outcome.stableName
        case .manifestChange(let outcome, _): detail = outcome.stableName
        }
        return subject.appVersions.map { FindingKey(appId: appId, appVersion: $0, kind: kind, category: subject.category, detail: detail) }
    }

    /// Most severe first; within a severity, in the order given (each family orders its own:
    /// mismatches by how many notifications they affected, regressions by category and outcome).
    public static func bySeverity(_ findings: [Finding]) -> [Finding] {
        findings.indices.sorted { i, j in
            findings[i].severity != findings[j].severity ? findings[i].severity > findings[j].severity : i < j
        }.map { findings[$0] }
    }
}

/// The identity of an announced finding: the webhook sends one message per key, ever.
public struct FindingKey: Sendable, Hashable, CustomStringConvertible {
    public var appId: Int64
    public var appVersion: String
    public var kind: FindingKind
    public var category: String
    /// What distinguishes findings of one kind and category: '' for mismatches, the outcome's
    /// stable name for release regressions (`opens`, `action:accept`, `textReplies`, `dismissals`).
    public var detail: String

    public init(appId: Int64, appVersion: String, kind: FindingKind, category: String, detail: String = "") {
        self.appId = appId
        self.appVersion = appVersion
        self.kind = kind
        self.category = category
        self.detail = detail
    }

    /// A stable id receivers can dedupe on (sent as X-Tapwire-Alert-Id); a key without a detail
    /// hashes as it did before details existed, so ids of findings announced then do not change.
    public var description: String {
        var text = "\(appId)\u{0}\(appVersion)\u{0}\(kind.rawValue)\u{0}\(category)"
        if !detail.isEmpty { text += "\u{0}\(detail)" }
        return SHA256.hex(Array(text.utf8))
    }
}

extension RegressionOutcome {
    /// A name that identifies the outcome within a category, for keys: `opens`, `action:<id>`,
    /// `textReplies`, `dismissals`.
    public var stableName: String {
        if case .action(let identifier) = self { return "action:\(identifier)" }
        return kind
    }

    /// The inverse of `stableName`.
    public init?(stableName: String) {
        switch stableName {
        case "opens": self = .opens
        case "textReplies": self = .textReplies
        case "dismissals": self = .dismissals
        default:
            guard stableName.hasPrefix("action:"), stableName.count > 7 else { return nil }
            self = .action(String(stableName.dropFirst(7)))
        }
    }

    /// "taps on \"accept\"", for a sentence.
    var noun: String {
        switch self {
        case .opens: "opens"
        case .action(let identifier): "the action \"\(identifier)\""
        case .textReplies: "text replies"
        case .dismissals: "dismissals"
        }
    }

    /// "The rate of taps on \"accept\" in \"invite\"", the start of a sentence.
    func phrase(category: String) -> String {
        switch self {
        case .opens: "The open rate of \"\(category)\""
        case .action(let identifier): "The rate of taps on \"\(identifier)\" in \"\(category)\""
        case .textReplies: "The text-reply rate of \"\(category)\""
        case .dismissals: "The dismissal rate of \"\(category)\""
        }
    }
}
