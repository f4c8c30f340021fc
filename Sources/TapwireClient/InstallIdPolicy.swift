/// Whether the SDK keeps and sends an install id (the batch context's `deviceId`, which
/// attribution needs; docs/SDK.md, "What leaves the device").
public enum InstallIdPolicy: String, Sendable {
    /// A random UUID made on first use and kept in `TapwireConfiguration.installIdDirectory`:
    /// never the IDFA, the IDFV or anything else that identifies a person or a device across apps.
    case generated
    /// No install id: none is kept (a kept one is deleted) and none is sent. Conversions are then
    /// stored but counted as unattributed, unless the app names the notification itself.
    case off
}
