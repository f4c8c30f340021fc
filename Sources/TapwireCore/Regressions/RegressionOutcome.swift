/// What a regression series measures: the share of a category's delivered notifications that
/// got this response.
public enum RegressionOutcome: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The default action: the user opened the notification.
    case opens
    /// An action the app registered in the category, by its identifier.
    case action(String)
    /// Registered actions answered with text (a UNTextInputNotificationAction's reply).
    case textReplies
    /// The dismiss action, reported only under customDismissAction.
    case dismissals

    /// The identifier a finding names: Apple's for opens and dismissals, the app's for an action;
    /// nil for text replies, which span the category's text-input actions.
    public var actionIdentifier: String? {
        switch self {
        case .opens: SystemAction.open
        case .action(let identifier): identifier
        case .textReplies: nil
        case .dismissals: SystemAction.dismiss
        }
    }

    /// A stable name of the kind: `opens`, `action`, `textReplies`, `dismissals`.
    public var kind: String {
        switch self {
        case .opens: "opens"
        case .action: "action"
        case .textReplies: "textReplies"
        case .dismissals: "dismissals"
        }
    }

    public var description: String {
        if case .action(let identifier) = self { return "action \(identifier)" }
        return kind
    }

    private var order: Int {
        switch self {
        case .opens: 0
        case .action: 1
        case .textReplies: 2
        case .dismissals: 3
        }
    }

    public static func < (a: RegressionOutcome, b: RegressionOutcome) -> Bool {
        if a.order != b.order { return a.order < b.order }
        if case .action(let x) = a, case .action(let y) = b { return x.utf8.lexicographicallyPrecedes(y.utf8) }
        return false
    }
}

// The collectors store each hour's look as JSON (TapwireStore.RegressionLookStore): the shapes are
// synthesised, so a change to any of them bumps `RegressionConfiguration.lookFormatVersion`.
extension RegressionOutcome: Codable {}
