/// The identity of an announced finding: the webhook sends one message per key, ever. Its texts
/// are compared by their bytes (`Bytewise`), as its id hashes them: look-alike categories are
/// two findings and two messages.
public struct FindingKey: Sendable, Hashable, CustomStringConvertible {
    public var appId: Int64
    @Bytewise public var appVersion: String
    public var kind: FindingKind
    @Bytewise public var category: String
    /// What distinguishes findings of one kind and category: '' for mismatches, the outcome's
    /// stable name for release regressions (`opens`, `action:accept`, `textReplies`, `dismissals`).
    @Bytewise public var detail: String

    public init(appId: Int64, appVersion: String, kind: FindingKind, category: String, detail: String = "") {
        self.appId = appId
        self.appVersion = appVersion
        self.kind = kind
        self.category = category
        self.detail = detail
    }

    /// A stable id receivers can dedupe on (sent as X-Tapwire-Alert-Id); a key without a detail
    /// hashes as it did before details existed, so ids of findings announced then do not change.
    public var description: String {
        var text = "\(appId)\u{0}\(appVersion)\u{0}\(kind.rawValue)\u{0}\(category)"
        if !detail.isEmpty { text += "\u{0}\(detail)" }
        return SHA256.hex(Array(text.utf8))
    }
}
