/// A batch after decoding: the valid events, and a reason for each one that was not.
public struct DecodedBatch: Sendable, Equatable {
    public var sentAt: Timestamp?
    public var receivedAt: Timestamp
    public var context: DeviceContext
    public var events: [Event]
    /// For each entry of `events`, its index in the posted array.
    public var indices: [Int]
    public var rejections: [EventRejection]
    /// How many events had their corrected time clamped.
    public var clampedCount: Int
}
