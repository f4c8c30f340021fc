import TapwireCore

/// An app's attribution windows (docs/outcomes.md, "Windows"). Changing them recomputes every
/// credit of the app under the new ones, in the same transaction: the credits and the
/// conversion rollups then equal what the conversions would have been given had they been stored
/// with the new windows.
public struct AttributionStore: Sendable {
    /// The longest window: the columns' constraint (migration 0161).
    public static let maximumWindowSeconds: Int64 = 30 * 86_400

    public init() {}

    /// What a change of windows did.
    public struct Recomputed: Sendable, Equatable {
        /// Conversions attributed again.
        public var conversions: Int64
        /// Credits that changed.
        public var changedCredits: Int64

        public init(conversions: Int64, changedCredits: Int64) {
            self.conversions = conversions
            self.changedCredits = changedCredits
        }
    }

    public func windows(appId: Int64, on connection: PostgresConnection) throws(DatabaseError) -> (direct: Int64, influence: Int64)? {
        guard let row = try connection.query(EmbeddedSQL.attributionWindows, [String(appId)]).namedRows.first else { return nil }
        return (try row.decode("direct_seconds"), try row.decode("influence_seconds"))
    }

    public func setWindows(appId: Int64, directSeconds: Int64, influenceSeconds: Int64,
                           on connection: PostgresConnection) throws(DatabaseError) -> Recomputed {
        try connection.transaction { () throws(DatabaseError) -> Recomputed in
            let conversions = try connection.query(EmbeddedSQL.attributionSetWindows,
                                               [String(appId), String(directSeconds), String(influenceSeconds)]).value(Int64.self)
            let changed = try connection.query(EmbeddedSQL.attributePending, [String(appId)]).value(Int64.self)
            return Recomputed(conversions: conversions, changedCredits: changed)
        }
    }
}
