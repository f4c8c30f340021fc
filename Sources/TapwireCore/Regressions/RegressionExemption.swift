/// Why a series is not compared at all, and is not counted in the family.
public enum RegressionExemption: Sendable, Equatable, CustomStringConvertible {
    /// No earlier version registered or delivered the category: a new category is no regression.
    case newCategory
    /// No earlier version's manifest has this outcome (a new action, the first text-input action,
    /// customDismissAction newly set).
    case newOutcome
    /// The candidate's manifest no longer has what earlier versions registered: a manifest change,
    /// not a regression. `versions` registered it.
    case removedFromManifest(versions: [String])

    public var code: String {
        switch self {
        case .newCategory: "new_category"
        case .newOutcome: "new_outcome"
        case .removedFromManifest: "manifest_change"
        }
    }

    public var description: String {
        switch self {
        case .newCategory: "the category is new in the candidate version"
        case .newOutcome: "new in the candidate version's manifest"
        case .removedFromManifest(let versions): "removed by the candidate version's manifest (registered by \(versions.joined(separator: ", ")))"
        }
    }
}

extension RegressionExemption: Codable {}
