import Foundation

public struct TapwireClientError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable {
        case queueIO = "queue_io"
        case queueLocked = "queue_locked"
        case eventTooLarge = "event_too_large"
        case compression = "compression_failed"
        case manifestRejected = "manifest_rejected"
        case closed = "client_closed"
        /// A conversion's name is empty, longer than 256 UTF-8 bytes, or holds a NUL character.
        case invalidConversionName = "invalid_conversion_name"
        /// A conversion's value is not a finite number from 0 to 10⁹, or has no currency.
        case invalidConversionValue = "invalid_conversion_value"
        /// A currency that is not an ISO 4217 code of three capital letters, or one without a value.
        case invalidCurrency = "invalid_currency"
        /// A notification id longer than 256 UTF-8 bytes or holding a NUL character.
        case invalidNotificationId = "invalid_notification_id"
        /// `DeviceInfo.deviceId` longer than 128 UTF-8 bytes or holding a NUL character: the
        /// collector would refuse every batch.
        case invalidDeviceId = "invalid_device_id"
    }
    public var code: Code
    public var message: String
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }
    public var description: String { "\(code.rawValue): \(message)" }

    init(_ error: QueueError) {
        switch error.code {
        case .io: self.init(.queueIO, error.message)
        case .locked: self.init(.queueLocked, error.message)
        case .recordTooLarge: self.init(.eventTooLarge, error.message)
        }
    }
}
