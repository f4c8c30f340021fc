/// What `tapwire retention --keep D` may delete, as values: the cutoffs follow from the keep
/// duration and the collector's acceptance window, so dedup stays exact for every event the
/// collector could still accept.
public struct RetentionPolicy: Sendable, Equatable {
    public enum Problem: Error, Sendable, Equatable, CustomStringConvertible {
        case keepTooShort(keepSeconds: Int64, minimumSeconds: Int64)
        case batchSizeOutOfRange(Int)

        public var code: String {
            switch self {
            case .keepTooShort: return "keep_too_short"
            case .batchSizeOutOfRange: return "batch_size_out_of_range"
            }
        }

        public var description: String {
            switch self {
            case let .keepTooShort(keep, minimum):
                return "--keep \(keep / 86_400)d is shorter than the \(minimum / 86_400) days the collector accepts events for: "
                    + "a late event for a dropped day would find no partition, and a retry of a dropped one would count twice. "
                    + "Use --keep \(minimum / 86_400)d or more"
            case let .batchSizeOutOfRange(size):
                return "--batch-size must be from 100 to 1000000, got \(size)"
            }
        }
    }

    /// Partitions ending this close to the cutoff are kept: the collectors' clocks may be a
    /// little behind the database's.
    public static let clockMarginSeconds: Int64 = 3600

    public var keepSeconds: Int64
    public var batchSize: Int

    /// Refuses a keep shorter than what the collector still accepts (IngestLimits.maxEventAgeMicroseconds).
    public init(keepSeconds: Int64, batchSize: Int = 10_000, limits: IngestLimits = IngestLimits()) throws(Problem) {
        let minimum = limits.maxEventAgeMicroseconds / 1_000_000
        guard keepSeconds >= minimum else { throw .keepTooShort(keepSeconds: keepSeconds, minimumSeconds: minimum) }
        guard (100...1_000_000).contains(batchSize) else { throw .batchSizeOutOfRange(batchSize) }
        self.keepSeconds = keepSeconds
        self.batchSize = batchSize
        self.maxFutureSeconds = limits.maxFutureMicroseconds / 1_000_000
    }

    let maxFutureSeconds: Int64

    /// Partitions whose whole range ends at or before this are dropped.
    public func partitionCutoff(now: Timestamp) -> Timestamp {
        Timestamp(microseconds: now.microseconds - (keepSeconds + Self.clockMarginSeconds) * 1_000_000)
    }

    /// Dedup ids received before this are deleted. An event's corrected time is at most the
    /// future-clamp window after its receive time, so every such event is older than the keep
    /// window, and a retry of it is rejected as too old before dedup is asked.
    public func idCutoff(now: Timestamp) -> Timestamp {
        Timestamp(microseconds: now.microseconds - (keepSeconds + maxFutureSeconds + Self.clockMarginSeconds) * 1_000_000)
    }
}
