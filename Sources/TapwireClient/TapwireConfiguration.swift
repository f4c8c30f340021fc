import Foundation

/// Everything the SDK needs, set once when the client is made.
public struct TapwireConfiguration: Sendable {
    /// The app's write key (it can only write, and only this app's data). Sent as the Basic-auth
    /// user name with an empty password.
    public var writeKey: String
    /// The collector's base URL, such as `https://collector.example.com`; `/v1/batch` and
    /// `/v1/categories` are appended.
    public var endpoint: URL
    /// Where the queue lives. One directory per process: the app and its Notification Service
    /// Extension each need their own (a second client on the same directory gets `queueLocked`).
    public var queueDirectory: URL
    public var device: DeviceInfo
    public var userInfoKeys: UserInfoKeys
    public var batch: BatchPolicy
    public var retry: RetryPolicy
    /// The queue never grows past this; the oldest events are dropped first and counted.
    public var maxQueueBytes: Int
    public var durability: QueueDurability
    /// Whether an install id is kept and sent (`.generated`, the default) or not (`.off`).
    /// `device.deviceId`, when the app sets it, is sent instead of the generated one.
    public var installId: InstallIdPolicy
    /// Where the generated install id is kept; nil: the queue directory. Set it to the App Group
    /// container the app shares with its Notification Service Extension, so deliveries recorded
    /// there and conversions recorded in the app carry one id (influenced attribution needs both).
    public var installIdDirectory: URL?
    /// Seconds after a tap during which a conversion names the tapped notification (the
    /// collector's direct window; 1 hour, as its default). 0 turns the naming off.
    public var directWindow: Double
    /// Called (on the flushing task) with events the collector refused; they are gone from the queue.
    public var onRejected: (@Sendable ([RejectedEvent]) -> Void)?
    /// Called with failures that have no other way out (a failed background record, a refused manifest).
    public var onError: (@Sendable (TapwireClientError) -> Void)?

    public init(writeKey: String, endpoint: URL, queueDirectory: URL, device: DeviceInfo,
                userInfoKeys: UserInfoKeys = UserInfoKeys(), batch: BatchPolicy = BatchPolicy(),
                retry: RetryPolicy = RetryPolicy(), maxQueueBytes: Int = 8 << 20,
                durability: QueueDurability = .fsyncEveryRecord,
                installId: InstallIdPolicy = .generated, installIdDirectory: URL? = nil, directWindow: Double = 3600,
                onRejected: (@Sendable ([RejectedEvent]) -> Void)? = nil,
                onError: (@Sendable (TapwireClientError) -> Void)? = nil) {
        self.writeKey = writeKey
        self.endpoint = endpoint
        self.queueDirectory = queueDirectory
        self.device = device
        self.userInfoKeys = userInfoKeys
        self.batch = batch
        self.retry = retry
        self.maxQueueBytes = maxQueueBytes
        self.durability = durability
        self.installId = installId
        self.installIdDirectory = installIdDirectory
        self.directWindow = directWindow
        self.onRejected = onRejected
        self.onError = onError
    }

    /// `Authorization: Basic base64(writeKey + ":")`.
    public var authorizationHeader: String { "Basic " + Data((writeKey + ":").utf8).base64EncodedString() }
}
