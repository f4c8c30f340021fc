/// Where a batch came from, shared by all of its events.
public struct DeviceContext: Sendable, Equatable, Hashable {
    /// '' when the sender did not say.
    public var appVersion: String
    public var build: String?
    /// '' when the sender did not say.
    public var platform: String
    public var osVersion: String?
    public var sdk: String?
    /// Optional and opaque: whatever the app chose to send, never derived by Tapwire.
    public var deviceId: String?

    public init(appVersion: String = "", build: String? = nil, platform: String = "", osVersion: String? = nil,
                sdk: String? = nil, deviceId: String? = nil) {
        self.appVersion = appVersion
        self.build = build
        self.platform = platform
        self.osVersion = osVersion
        self.sdk = sdk
        self.deviceId = deviceId
    }
}
