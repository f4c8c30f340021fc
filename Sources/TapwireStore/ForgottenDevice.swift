import TapwireCore

/// What forgetting an install id removed, by table, and the id's digest: what logs and answers
/// name instead of the id.
public struct ForgottenDevice: Sendable, Equatable {
    /// The first 16 hex digits of SHA-256 of the install id.
    public var device: String
    public var removed: [(table: String, rows: Int64)]

    public init(device: String, removed: [(table: String, rows: Int64)]) {
        self.device = device
        self.removed = removed
    }

    /// Enough to match a request in the logs with the person who made it, who knows the id;
    /// install ids are random, so the prefix of an unsalted hash does not lead back to one.
    public static func digest(of deviceId: String) -> String { String(SHA256.hex(Array(deviceId.utf8)).prefix(16)) }

    public static func == (a: ForgottenDevice, b: ForgottenDevice) -> Bool {
        a.device == b.device && a.removed.map(\.table) == b.removed.map(\.table) && a.removed.map(\.rows) == b.removed.map(\.rows)
    }

    public var json: JSONValue {
        .object([("device", .string(device)), ("removed", .object(removed.map { ($0.table, .int($0.rows)) }))])
    }
}
