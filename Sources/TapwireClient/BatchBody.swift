/// The body of `POST /v1/batch` (`WireBatch`). Built for each attempt, so `sentAt` is the time of
/// that send and the collector's skew correction stays right on a retry days later.
public enum BatchBody {
    public static func encode(sentAtMicros: Int64, device: DeviceInfo, events: [[UInt8]]) -> [UInt8] {
        WireBatch.encode(sentAt: Timestamp(microseconds: sentAtMicros), context: device.wire, events: events)
    }
}
