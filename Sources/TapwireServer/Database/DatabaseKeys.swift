import TapwireCore
import TapwireStore

/// Keys looked up on the database threads (`AppStore.resolve`: by public id, the secret's hash
/// compared in constant time).
public struct DatabaseKeys: KeyResolver {
    public let database: DatabaseExecutor

    public init(database: DatabaseExecutor) { self.database = database }

    /// A key that cannot be looked up is not refused as unknown: 503, and the client retries.
    public func resolve(_ key: APIKey) async throws(APIError) -> KeyIdentity? {
        let result = await database.perform { (connection) throws(DatabaseError) in try AppStore().resolve(key, on: connection) }
        return try result.mapError { error in
            APIError(error, doing: "looking up the key") { _ in APIError(.databaseUnavailable, "the database is unavailable; retry later", retryAfterSeconds: 1) }
        }.get()
    }
}
