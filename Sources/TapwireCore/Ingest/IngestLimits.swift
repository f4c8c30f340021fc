/// Every size and count the collector enforces, in one place (docs/architecture.md, "Limits", says
/// where each is enforced).
public struct IngestLimits: Sendable, Equatable {
    /// Content-Length (compressed) above this gets 413 before the body is read.
    public var maxBodyBytes = 1 << 20
    /// Inflating stops with 413 past this many bytes; the gzip ISIZE trailer is never trusted.
    public var maxDecompressedBytes = 8 << 20
    public var maxEventsPerBatch = 2000
    /// One event's JSON object, braces included.
    public var maxEventBytes = 32 << 10
    /// Category and action identifiers, notification ids, campaigns and variants.
    public var maxIdentifierBytes = 256
    /// appVersion, build and osVersion.
    public var maxVersionBytes = 64
    public var maxPlatformBytes = 32
    /// The largest conversion value accepted: beyond any real purchase, within what a sum of
    /// millions of them keeps exact in PostgreSQL numeric and close in a Double.
    public static let maxConversionValue: Double = ConversionRules.maxValue
    /// sdk and deviceId (the context's and an event's own).
    public var maxTagBytes = 128
    /// userTextLength above this is not a plausible reply length.
    public var maxUserTextLength: Int64 = 1 << 20
    /// `mediaTypes`: entries per event, and bytes per entry (the longest known kind is 5).
    public var maxMediaTypesPerEvent = 10
    public var maxMediaTypeBytes = 16
    /// Events whose corrected time is older than this are rejected (partitions are not made for them).
    public var maxEventAgeMicroseconds: Int64 = 400 * 86_400_000_000
    /// A corrected time further than this in the future is clamped to the receive time.
    public var maxFutureMicroseconds: Int64 = 86_400_000_000
    /// Manifests: categories per app, and actions per category.
    public var maxCategories = 512
    public var maxActionsPerCategory = 32
    /// Option names per category or action (UNNotificationCategoryOptions has fewer than this).
    public var maxOptions = 16

    public init() {}
}
