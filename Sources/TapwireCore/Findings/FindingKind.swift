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
