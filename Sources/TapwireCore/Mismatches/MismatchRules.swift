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
