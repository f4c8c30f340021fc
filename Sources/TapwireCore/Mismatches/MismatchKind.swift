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
