/// The newest version against the versions before it, every category × outcome.
public struct RegressionComparison: Sendable, Equatable {
    public var candidateVersion: String
    /// Every other version that delivered, newest (highest) first. A series pools those of them that have
    /// its outcome (see docs/regressions.md, "The baseline").
    public var baselineVersions: [String]
    /// The instant evaluated, µs: only hours before it are used.
    public var asOf: Int64
    /// Series compared (not exempt): the family the alpha is split over.
    public var seriesInFamily: Int
    /// familyAlpha / seriesInFamily.
    public var alphaPerSeries: Double
    /// The candidate posted no manifest: only opens are compared.
    public var candidateManifestMissing: Bool
    /// By category, then outcome.
    public var results: [RegressionSeriesResult]

    public var findings: [RegressionFinding] {
        results.compactMap { if case .flagged(let finding) = $0.decision { finding } else { nil } }
    }
}

extension RegressionComparison: Codable {}
