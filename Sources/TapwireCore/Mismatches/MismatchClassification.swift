/// What one usage line means, before lines are merged into findings. Its texts are compared by
/// their bytes, so look-alike identifiers stay two findings (`Bytewise`).
public struct MismatchClassification: Sendable, Hashable {
    public var kind: MismatchKind
    @Bytewise public var category: String
    @Bytewise public var action: String?
    @Bytewise public var suggestion: String?
    /// The device said "not registered" for a category the manifest registers: the set on the
    /// device was replaced (a second setNotificationCategories call, often by another SDK).
    public var wipedOnDevice: Bool

    public init(kind: MismatchKind, category: String, action: String? = nil, suggestion: String? = nil, wipedOnDevice: Bool = false) {
        self.kind = kind
        self.category = category
        self.action = action
        self.suggestion = suggestion
        self.wipedOnDevice = wipedOnDevice
    }
}
