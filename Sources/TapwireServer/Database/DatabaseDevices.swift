import TapwireCore
import TapwireStore

/// Install ids forgotten on the database threads (`DeviceStore`).
public struct DatabaseDevices: DeviceEraser {
    public let database: DatabaseExecutor

    public init(database: DatabaseExecutor) { self.database = database }

    public func forget(deviceId: String, appId: Int64) async throws(APIError) -> ForgottenDevice {
        let result = await database.perform { (connection) throws(DatabaseError) in try DeviceStore().forget(deviceId: deviceId, appId: appId, on: connection) }
        return try result.mapError { APIError($0, doing: "forgetting the device") { APIError($0, doing: "forgetting the device") } }.get()
    }
}
