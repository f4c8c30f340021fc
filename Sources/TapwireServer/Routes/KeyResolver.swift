import TapwireCore
import TapwireStore

/// What a key is: its app and kind, or nil for an unknown, revoked or expired key
/// (DatabaseKeys.swift). `CollectorHandler` asks it on a `KeyCache` miss.
public protocol KeyResolver: Sendable {
    func resolve(_ key: APIKey) async throws(APIError) -> KeyIdentity?
}
