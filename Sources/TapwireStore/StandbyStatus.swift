/// Whether the database a reader reads is a hot standby and how far its data is behind the
/// primary, so reports and alerts read there can say so (docs/high-availability.md).
public struct StandbyStatus: Sendable, Equatable {
    /// Seconds the standby's data is behind its primary; nil on a primary.
    public var replayLagSeconds: Double?

    /// Lag up to this is normal replay and not mentioned; above it, a reader is told.
    public static let noticeableLagSeconds = 5.0

    public init(replayLagSeconds: Double?) { self.replayLagSeconds = replayLagSeconds }

    /// The lag when it is over `noticeableLagSeconds`, else nil.
    public var noticeableLagSeconds: Double? {
        guard let lag = replayLagSeconds, lag > Self.noticeableLagSeconds else { return nil }
        return lag
    }

    /// What a reader is told when the lag is noticeable.
    public var notice: String? {
        noticeableLagSeconds.map {
            "read from a hot standby \(Int($0.rounded())) s behind its primary: events acknowledged since are not counted yet"
        }
    }

    public static func read(on connection: PostgresConnection) throws(DatabaseError) -> StandbyStatus {
        StandbyStatus(replayLagSeconds: try connection.query(EmbeddedSQL.standbyReplayLag).value(Double?.self))
    }
}
