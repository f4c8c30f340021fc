import Foundation
import TapwireCore

/// The release-regression check's hourly looks, taken once and stored (migration 0105,
/// docs/regressions.md, "Stored looks"). The collectors' FindingMonitor takes each hour's look
/// (`take`); `tapwire alerts`, GET /v1/findings and the report's findings sections serve the
/// current hour's look from the table (`look`) instead of replaying every hour since the release.
public struct RegressionLookStore: Sendable {
    public var configuration: RegressionConfiguration

    /// How many hours of looks are kept per app, back from the newest stored: a few days to look
    /// back on, and a bound on the table.
    public static let historyHours: Int64 = 72

    /// How the check counts every acknowledged event (`ReadFold`).
    public var fold: any ReadFold

    public init(configuration: RegressionConfiguration = .default, fold: any ReadFold = OwnFold()) {
        self.configuration = configuration
        self.fold = fold
    }

    /// Which look a reader asks for.
    public enum Request: Sendable, Equatable {
        /// The current look: the stored one of the hour `asOf` falls in while it applies (same
        /// settings, same manifests in force), else computed now.
        case current
        /// Computed from the rollups now: `--fresh`, and every replay (`--at`), which asks what
        /// the data says about that instant.
        case computed
    }

    /// The check as of `asOf`, saying where it came from (`RegressionCheck.look`). Never writes: a
    /// reader may run on a read-only standby, and only the collectors' look waits for the hour's
    /// late batches (`FindingMonitor.Options.regressionDelaySeconds`).
    public func look(appId: Int64, asOf: Timestamp, request: Request, on connection: PostgresConnection) throws(DatabaseError) -> RegressionCheck {
        if request == .current, var stored = try stored(appId: appId, looksEnd: Self.looksEnd(asOf), currentManifestsOnly: true, on: connection) {
            stored.asOf = asOf.microseconds
            return stored
        }
        var check = try RegressionStore(configuration: configuration, fold: fold).check(appId: appId, asOf: asOf, on: connection)
        check.look = .computed
        return check
    }

    /// The collectors' look of the hour that ends at `asOf` (a whole hour): the stored one if any
    /// collector took it already, else computed and stored (the primary key keeps one; a
    /// collector that loses the race returns the winner's, so every collector publishes the same).
    /// On a database it cannot write (a standby), computed and not stored.
    public func take(appId: Int64, asOf: Timestamp, on connection: PostgresConnection) throws(DatabaseError) -> RegressionCheck {
        let looksEnd = Self.looksEnd(asOf)
        if let stored = try stored(appId: appId, looksEnd: looksEnd, currentManifestsOnly: false, on: connection) { return stored }
        // Read before the check: a manifest posted in between makes the stored state older than
        // what the check saw, so readers recompute rather than serve a look the manifest changed.
        let manifests = try manifestsState(appId: appId, on: connection)
        var check = try RegressionStore(configuration: configuration, fold: fold).check(appId: appId, asOf: Timestamp(microseconds: looksEnd),
                                                                            on: connection)
        let takenAt = Timestamp.now
        check.look = .stored(takenAt: takenAt.microseconds)
        let stored: QueryResult
        do {
            stored = try connection.query(EmbeddedSQL.regressionLookStore, [
                String(appId), RegressionStore.text(looksEnd), configuration.lookFingerprint, manifests, takenAt.iso8601(fractionDigits: 6),
                try Self.encode(check), RegressionStore.text(looksEnd - Self.historyHours * RollupDeltas.microsecondsPerHour),
            ])
        } catch where error.isNotWritable {
            // A collector serving reads from a standby (docs/high-availability.md): the primary's
            // collectors store the look; this one publishes what it computed.
            check.look = .computed
            return check
        }
        if stored.rows.isEmpty, let winner = try self.stored(appId: appId, looksEnd: looksEnd, currentManifestsOnly: false, on: connection) {
            return winner
        }
        return check
    }

    /// The digest of the app's manifests in force and rebuilds (`tapwire_manifests_state`).
    private func manifestsState(appId: Int64, on connection: PostgresConnection) throws(DatabaseError) -> String {
        try connection.query(EmbeddedSQL.regressionLookManifests, [String(appId)]).value(String.self)
    }

    /// The stored look of an app and hour with this configuration, if there is one that decodes.
    /// One that does not (written by a build whose shape differs without a new format version)
    /// counts as missing, so the check is computed rather than failing.
    private func stored(appId: Int64, looksEnd: Int64, currentManifestsOnly: Bool,
                        on connection: PostgresConnection) throws(DatabaseError) -> RegressionCheck? {
        let manifests = currentManifestsOnly ? try manifestsState(appId: appId, on: connection) : nil
        let rows = try connection.query(EmbeddedSQL.regressionLookRead, [String(appId), RegressionStore.text(looksEnd),
                                                                         configuration.lookFingerprint, manifests])
        guard let row = rows.namedRows.first else { return nil }
        let (takenAt, body) = try row.decode((Int64, String).self)
        guard var check = try? Self.decoder.decode(RegressionCheck.self, from: Data(body.utf8)) else { return nil }
        check.look = .stored(takenAt: takenAt)
        return check
    }

    /// The look an instant shows: the whole hour at or before it.
    public static func looksEnd(_ asOf: Timestamp) -> Int64 { RollupDeltas.floor(asOf.microseconds, RollupDeltas.microsecondsPerHour) }

    // Infinite interval bounds (a look with no variance) are spelled as strings: JSON has no infinity.
    private static let floats = (positive: "+inf", negative: "-inf", nan: "nan")

    private static var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(positiveInfinity: floats.positive, negativeInfinity: floats.negative,
                                                                        nan: floats.nan)
        return decoder
    }

    /// The stored form of a look (its JSON), also what the benchmark sizes.
    public static func encode(_ check: RegressionCheck) throws(DatabaseError) -> String {
        let encoder = JSONEncoder()
        encoder.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: floats.positive, negativeInfinity: floats.negative,
                                                                      nan: floats.nan)
        do {
            return String(decoding: try encoder.encode(check), as: UTF8.self)
        } catch {
            throw DatabaseError(.unexpectedResult, "a regression look could not be encoded")
        }
    }
}
