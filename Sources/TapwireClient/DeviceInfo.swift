/// The device facts sent with every batch. `deviceId` is nil by default: the client then sends
/// the install id it generates (`TapwireConfiguration.installId`); an app that keeps a
/// pseudonymous install id of its own may set it here instead (never a person's identifier:
/// no IDFA, IDFV, email or account id).
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
