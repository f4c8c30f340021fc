import TapwireCore

/// An app, as listed by `tapwire apps list`.
public struct AppRecord: Sendable, Equatable {
    public var appId: Int64
    public var name: String
    public var createdAt: Timestamp
    public var activeWriteKeys: Int
    public var activeReadKeys: Int
}
