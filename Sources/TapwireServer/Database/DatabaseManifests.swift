import TapwireCore
import TapwireStore

/// Manifests stored and read on the database threads (`ManifestStore`).
public struct DatabaseManifests: ManifestSink, ManifestReader {
    public let database: DatabaseExecutor
    /// Manifests decoded before, by content hash: the mismatch counters re-read an app's
    /// manifests every 30 s (`MismatchMetrics`), and only a new one is decoded then.
    public let manifestCache: ManifestCache?

    public init(database: DatabaseExecutor, manifestCache: ManifestCache? = nil) {
        self.database = database
        self.manifestCache = manifestCache
    }

    public func store(_ manifest: Manifest, appId: Int64) async throws(APIError) -> StoredManifest {
        let result = await database.perform { (connection) throws(DatabaseError) in try ManifestStore().store(manifest, appId: appId, on: connection) }
        return try result.mapError { APIError($0, doing: "storing the manifest") { APIError($0, doing: "storing the manifest") } }.get()
    }

    public func currentManifests(appId: Int64) async throws(APIError) -> [String: Manifest] {
        let cache = manifestCache
        let result = await database.perform { (connection) throws(DatabaseError) in
            try ManifestStore().currentManifests(appId: appId, on: connection, cache: cache)
        }
        return try result.mapError { APIError($0, doing: "reading the manifests") { APIError($0, doing: "reading the manifests") } }.get()
    }
}
