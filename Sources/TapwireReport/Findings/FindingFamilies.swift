import TapwireCore

/// The one list of rule families. Every output, the monitor, the outbox, /metrics and the API
/// iterate it in this order; adding a family is its own files and one line here.
public enum FindingFamilies {
    public static func all(_ configuration: FindingsConfiguration = .default) -> [any FindingFamily] {
        [
            CategoryMismatchFamily(rules: configuration.mismatchRules, lookbackSeconds: configuration.mismatchLookbackSeconds,
                                   fold: configuration.fold, manifestCache: configuration.manifestCache),
            ReleaseRegressionFamily(configuration: configuration.regression, fold: configuration.fold),
            SampleRatioMismatchFamily(fold: configuration.fold),
        ]
    }

    /// Every kind of every family, in output order (the OpenAPI document's enum).
    public static var kinds: [FindingKind] { all().flatMap(\.kinds) }

    /// The CSS every family's sections need (a findings page that may show any of them).
    public static var css: String { all().map(\.css).joined() }
}
