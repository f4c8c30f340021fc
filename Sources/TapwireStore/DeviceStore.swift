import TapwireCore

/// A device's data, forgotten on request (docs/outcomes.md, "Forgetting a device"): every row
/// that holds its install id goes, in one transaction (`tapwire_forget_device`, migration 0170);
/// the rollups, which hold no install id, stay.
public struct DeviceStore: Sendable {
    public init() {}

    public func forget(deviceId: String, appId: Int64, on connection: PostgresConnection) throws(DatabaseError) -> ForgottenDevice {
        let rows = try connection.query(EmbeddedSQL.deviceForget, [String(appId), deviceId]).namedRows
        var removed: [(table: String, rows: Int64)] = []
        for row in rows {
            removed.append((try row.decode("held_in"), try row.decode("removed")))
        }
        return ForgottenDevice(device: ForgottenDevice.digest(of: deviceId), removed: removed)
    }
}
