import TapwireCore

/// What a key resolves to.
public struct KeyIdentity: Sendable, Equatable, Hashable {
    public var appId: Int64
    public var appName: String
    public var kind: APIKey.Kind
    public var keyId: String

    public init(appId: Int64, appName: String, kind: APIKey.Kind, keyId: String) {
        self.appId = appId
        self.appName = appName
        self.kind = kind
        self.keyId = keyId
    }
}
