extension RegressionOutcome {
    /// A name that identifies the outcome within a category, for keys: `opens`, `action:<id>`,
    /// `textReplies`, `dismissals`.
    public var stableName: String {
        if case .action(let identifier) = self { return "action:\(identifier)" }
        return kind
    }

    /// The inverse of `stableName`.
    public init?(stableName: String) {
        switch stableName {
        case "opens": self = .opens
        case "textReplies": self = .textReplies
        case "dismissals": self = .dismissals
        default:
            guard stableName.hasPrefix("action:"), stableName.count > 7 else { return nil }
            self = .action(String(stableName.dropFirst(7)))
        }
    }

    /// "taps on \"accept\"", for a sentence.
    var noun: String {
        switch self {
        case .opens: "opens"
        case .action(let identifier): "the action \"\(identifier)\""
        case .textReplies: "text replies"
        case .dismissals: "dismissals"
        }
    }

    /// "The rate of taps on \"accept\" in \"invite\"", the start of a sentence.
    func phrase(category: String) -> String {
        switch self {
        case .opens: "The open rate of \"\(category)\""
        case .action(let identifier): "The rate of taps on \"\(identifier)\" in \"\(category)\""
        case .textReplies: "The text-reply rate of \"\(category)\""
        case .dismissals: "The dismissal rate of \"\(category)\""
        }
    }
}
