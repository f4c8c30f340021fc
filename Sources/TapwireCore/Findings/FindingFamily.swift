/// The rule family a finding comes from.
public enum FindingFamily: String, Sendable, CaseIterable, Hashable {
    case categoryMismatch = "category_mismatch"
    case releaseRegression = "release_regression"
}
