// The rules that judge one usage line (one event shape) against the manifest its app version
// posted: unknown_category, case_mismatch, near_miss, no_manifest, unregistered_action and
// impossible_dismiss.

extension MismatchDetector {
    /// What is wrong with events of this shape, if anything (dead categories and platform caveats
    /// need the whole window and are not per-event). Cheap enough to run per stored event.
    public func classify(appVersion: String, type: EventType, category: String, action: String?,
                         registration: RegistrationReport, manifests: ManifestIndex) -> [MismatchClassification] {
        guard !category.isEmpty else { return [] }  // A notification without a category is legitimate.
        guard let reference = manifests.reference(for: appVersion) else {
            // The version never posted a manifest. The device's own "not registered" is still
            // evidence; everything else is unverifiable, said once as no_manifest.
            if registration == .unregistered {
                return [categoryProblem(category, against: manifests.union, registration: registration)]
            }
            return [MismatchClassification(kind: .noManifest, category: category)]
        }
        guard let registered = reference[Bytewise(category)] else {
            return [categoryProblem(category, against: reference, registration: registration)]
        }
        if registration == .unregistered {
            return [MismatchClassification(kind: .unknownCategory, category: category, wipedOnDevice: true)]
        }
        guard type == .response, let action, !action.isEmpty else { return [] }
        if action == SystemAction.open { return [] }
        if action == SystemAction.dismiss {
            return registered.hasCustomDismissAction ? [] : [MismatchClassification(kind: .impossibleDismiss, category: category, action: action)]
        }
        let actions = registered.actions.map(\.identifier)
        if actions.contains(where: { String.sameBytes($0, action) }) { return [] }
        var suggestion: String?
        switch IdentifierDistance.closest(to: action, among: actions, rules: rules) {
        case .caseOnly(let name)?, .near(let name, _)?: suggestion = name
        case nil: suggestion = nil
        }
        return [MismatchClassification(kind: .unregisteredAction, category: category, action: action, suggestion: suggestion)]
    }

    private func categoryProblem(_ category: String, against reference: [Bytewise<String>: ManifestCategory],
                                 registration: RegistrationReport) -> MismatchClassification {
        if reference[Bytewise(category)] != nil {
            return MismatchClassification(kind: .unknownCategory, category: category, wipedOnDevice: registration == .unregistered)
        }
        switch IdentifierDistance.closest(to: category, among: reference.keys.map(\.wrappedValue), rules: rules) {
        case .caseOnly(let name)?: return MismatchClassification(kind: .caseMismatch, category: category, suggestion: name)
        case .near(let name, _)?: return MismatchClassification(kind: .nearMiss, category: category, suggestion: name)
        case nil: return MismatchClassification(kind: .unknownCategory, category: category)
        }
    }
}
