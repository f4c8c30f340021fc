import TapwireCore
import TapwireStore

/// Manifests stored and read on the database threads (`ManifestStore`).
public struct DatabaseManifests: ManifestSink, ManifestReader {
    public let database: DatabaseExecutor

    public init(database: DatabaseExecutor) { self.database = database }

    public func store(_ manifest: Manifest, appId: Int64) async throws(APIError) -> StoredManifest {
        let result = await database.perform { (connection) throws(DatabaseError) in try ManifestStore().store(manifest, appId: appId, on: connection) }
        return try result.mapError { APIError($0, doing: "storing the manifest") { APIError($0, doing: "storing the manifest") } }.get()
    }

    public func currentManifests(appId: Int64) async throws(APIError) -> [String: Manifest] {
        let result = await database.perform { (connection) throws(DatabaseError) in try ManifestStore().currentManifests(appId: appId, on: connection) }
        return try result.mapError { APIError($0, doing: "reading the manifests") { APIError($0, doing: "reading the manifests") } }.get()
    }
}
