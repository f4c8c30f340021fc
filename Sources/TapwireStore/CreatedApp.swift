import TapwireCore

/// A new app with its two keys, shown once.
public struct CreatedApp: Sendable {
    public var appId: Int64
    public var name: String
    public var writeKey: APIKey
    public var readKey: APIKey
}
