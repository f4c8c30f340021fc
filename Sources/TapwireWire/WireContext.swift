/// The device facts sent with every batch (`context`).
public struct WireContext: Sendable, Equatable {
    public var appVersion: String
    public var build: String?
    public var platform: String
    public var osVersion: String?
    public var sdk: String?
    public var deviceId: String?

    public init(appVersion: String, build: String? = nil, platform: String, osVersion: String? = nil, sdk: String? = nil,
                deviceId: String? = nil) {
        self.appVersion = appVersion
        self.build = build
        self.platform = platform
        self.osVersion = osVersion
        self.sdk = sdk
        self.deviceId = deviceId
    }

    public var json: JSONValue {
        var members: [(String, JSONValue)] = [("appVersion", .string(appVersion))]
        if let build { members.append(("build", .string(build))) }
        members.append(("platform", .string(platform)))
        if let osVersion { members.append(("osVersion", .string(osVersion))) }
        if let sdk { members.append(("sdk", .string(sdk))) }
        if let deviceId { members.append(("deviceId", .string(deviceId))) }
        return .object(members)
    }
}
