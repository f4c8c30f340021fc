/// What a finding is: its stable name in every output (`kind`), in the outbox's key and in
/// /metrics. Each family declares its own kinds beside its rule (`FindingKind.mismatch(_:)`,
/// `FindingKind.engagementRegression`) and lists them (`FindingFamily.kinds`, TapwireReport), so
/// a new family adds kinds without touching this type.
public struct FindingKind: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public var rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }

    public var description: String { rawValue }
}
