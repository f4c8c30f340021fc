import TapwireCore

/// The fold `tapwire report`, `tapwire alerts`, the rebuild's readers and the tests do: every
/// pending delta folded on the reader's connection first (`RollupStore.foldBeforeReading`; a role
/// that may not write reads without it).
public struct OwnFold: ReadFold {
    public init() {}

    public func foldBeforeReading(on connection: PostgresConnection) throws(DatabaseError) {
        try RollupStore().foldBeforeReading(on: connection)
    }
}
