/// The device facts sent with every batch. Only what the app chose: `deviceId` is nil unless
/// the app sets an id of its own.
public struct DeviceInfo: Sendable, Equatable {
    public var appVersion: String
    public var build: String?
    public var platform: String
    public var osVersion: String?
    public var sdk: String
    public var deviceId: String?

    public static let sdkName = "tapwire-swift/1.0"

    public init(appVersion: String, build: String? = nil, platform: String, osVersion: String? = nil,
                sdk: String = DeviceInfo.sdkName, deviceId: String? = nil) {
        self.appVersion = appVersion
        self.build = build
        self.platform = platform
        self.osVersion = osVersion
        self.sdk = sdk
        self.deviceId = deviceId
    }

    var wire: WireContext {
        WireContext(appVersion: appVersion, build: build, platform: platform, osVersion: osVersion, sdk: sdk, deviceId: deviceId)
    }
}
