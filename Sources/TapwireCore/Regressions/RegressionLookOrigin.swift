/// Where a shown look comes from (docs/regressions.md, "Stored looks").
public enum RegressionLookOrigin: Sendable, Equatable, Codable {
    /// Taken by the collectors' hourly check at `takenAt` (µs since 1970) and stored: it does not
    /// count events that arrived after that.
    case stored(takenAt: Int64)
    /// Computed for this request from the rollups as they are (a replay computed twice says the
    /// same, so no time is attached).
    case computed

    /// `stored` or `computed`: the JSON's `lookSource`.
    public var source: String {
        switch self {
        case .stored: "stored"
        case .computed: "computed"
        }
    }

    public var takenAt: Int64? {
        if case .stored(let takenAt) = self { takenAt } else { nil }
    }
}
