import TapwireCore

/// Category manifests per app and app version, deduplicated by content hash.
public struct ManifestStore: Sendable {
    public init() {}

    public func store(_ manifest: Manifest, appId: Int64, on connection: PostgresConnection) throws(DatabaseError) -> StoredManifest {
        let hash = manifest.contentHash
        return try connection.transaction { () throws(DatabaseError) -> StoredManifest in
            let result = try connection.query(EmbeddedSQL.manifestUpsert,
                                              [String(appId), manifest.appVersion, hash, manifest.canonicalJSON.serialized()])
            guard let row = result.namedRows.first else { throw DatabaseError(.unexpectedResult, "manifest upsert returned no row") }
            let id: Int64 = try row.decode("manifest_id")
            let created: Bool = try row.decode("created")
            if created {
                for category in manifest.categories {
                    try connection.query(EmbeddedSQL.manifestCategoryInsert, [
                        String(appId), String(id), category.identifier, category.title,
                        PostgresValue.textArray(category.options), category.hasCustomDismissAction ? "true" : "false",
                    ])
                    for (position, action) in category.actions.enumerated() {
                        try connection.query(EmbeddedSQL.manifestActionInsert, [
                            String(appId), String(id), category.identifier, action.identifier, String(position),
                            action.title, PostgresValue.textArray(action.options), action.textInput ? "true" : "false",
                        ])
                    }
                }
            }
            return StoredManifest(manifestId: id, contentHash: hash, created: created)
        }
    }

    /// The manifest in force for each app version of an app (the one posted last). With a
    /// `cache`, only the manifests whose content it has not seen are read and decoded.
    public func currentManifests(appId: Int64, on connection: PostgresConnection,
                                 cache: ManifestCache? = nil) throws(DatabaseError) -> [String: Manifest] {
        var out: [String: Manifest] = [:]
        var missing: [(version: String, id: Int64, hash: String)] = []
        for row in try connection.query(EmbeddedSQL.manifestsCurrent, [String(appId)]).namedRows {
            let version: String = try row.decode("app_version"), id: Int64 = try row.decode("manifest_id")
            let hash: String = try row.decode("content_hash")
            if let known = cache?.manifest(contentHash: hash) {
                out[version] = known
            } else {
                missing.append((version, id, hash))
            }
        }
        guard !missing.isEmpty else { return out }
        var bodies: [Int64: String] = [:]
        for row in try connection.query(EmbeddedSQL.manifestBodies, [String(appId), PostgresValue.intArray(missing.map(\.id))]).namedRows {
            bodies[try row.decode("manifest_id", as: Int64.self)] = try row.decode("body", as: String.self)
        }
        for entry in missing {
            // A manifest this build cannot read (stored by a newer one) is left out, not an error.
            guard let body = bodies[entry.id], let json = try? JSONParser().parse(body),
                  let manifest = try? ManifestDecoder().decode(json) else { continue }
            cache?.insert(manifest, contentHash: entry.hash)
            out[entry.version] = manifest
        }
        return out
    }
}
