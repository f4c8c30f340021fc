/// A platform behaviour that makes some buttons or fields absent there. Data, not a constant in
/// the rules, because the sources disagree (docs/domain.md, "Platforms").
public struct PlatformCaveat: Sendable, Equatable {
    public enum Scope: Sendable, Equatable {
        /// Each text-input action of a category: the platform shows the buttons but no text field.
        case textInputActions
        /// The category's action buttons as a whole.
        case categoryActions
    }

    public var platform: String
    public var scope: Scope
    /// The caveat only applies to categories registered with this option (e.g. allowInCarPlay).
    public var requiredCategoryOption: String?
    /// True when it applies only to events the platform itself reported (its `context.platform`);
    /// false when the platform never reports (CarPlay shows an iPhone's notifications).
    public var observedOnly: Bool
    public var note: String

    public init(platform: String, scope: Scope, requiredCategoryOption: String? = nil, observedOnly: Bool, note: String) {
        self.platform = platform
        self.scope = scope
        self.requiredCategoryOption = requiredCategoryOption
        self.observedOnly = observedOnly
        self.note = note
    }

    public static let defaults: [PlatformCaveat] = [
        PlatformCaveat(platform: "CarPlay", scope: .textInputActions, requiredCategoryOption: "allowInCarPlay", observedOnly: false,
                       note: "CarPlay shows category buttons but never text input, so this text-input action is hidden there"),
        PlatformCaveat(platform: "watchOS", scope: .categoryActions, observedOnly: true,
                       note: "watchOS may show this category without its action buttons (sources disagree by watchOS version); read its engagement per platform"),
    ]
}
