import TapwireStore

/// Where `POST /v1/devices/forget` removes an install id's rows (DatabaseDevices.swift).
public protocol DeviceEraser: Sendable {
    func forget(deviceId: String, appId: Int64) async throws(APIError) -> ForgottenDevice
}
