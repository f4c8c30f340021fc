import TapwireCore

/// An app's manifests in force, per app version: what the mismatch counters of stored events
/// classify against (DatabaseManifests.swift).
public protocol ManifestReader: Sendable {
    func currentManifests(appId: Int64) async throws(APIError) -> [String: Manifest]
}
