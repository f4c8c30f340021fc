import TapwireCore
import TapwireStore

/// Where `POST /v1/categories` stores an app version's manifest (DatabaseManifests.swift).
public protocol ManifestSink: Sendable {
    func store(_ manifest: Manifest, appId: Int64) async throws(APIError) -> StoredManifest
}
