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
