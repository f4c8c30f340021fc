import Foundation

/// The notification whose tap (a response other than dismiss) last opened the app, and when.
///
/// Why kept: a purchase made in the session a tap opened should name that notification, and the
/// tap and the purchase are separate calls, minutes apart, perhaps in separate launches (a crash
/// between them). The client remembers the tap in `last-tap.json` beside the queue and attaches it
/// to conversions recorded within the direct window. Pure; the client writes `persisted`.
public struct RememberedTap: Sendable, Equatable {
    public var notificationId: String
    /// Device time of the tap, µs since the epoch (the response event's timestamp).
    public var tappedAtMicros: Int64

    public init(notificationId: String, tappedAtMicros: Int64) {
        self.notificationId = notificationId
        self.tappedAtMicros = tappedAtMicros
    }

    /// The notification a conversion at `micros` names: this tap's, when the conversion comes at
    /// most `window` seconds after it, as the collector's direct rule looks back (docs/outcomes.md).
    /// A conversion dated before the tap (the clock was set back) names none.
    public func notificationId(forConversionAt micros: Int64, window: Double) -> String? {
        let age = micros - tappedAtMicros
        guard age >= 0, Double(age) <= window * 1_000_000 else { return nil }
        return notificationId
    }

    /// Whether a response is a tap the direct window starts from: any action but dismiss (an
    /// open, a registered action, a text reply), as the collector's engaged responses are.
    public static func isTap(actionIdentifier: String) -> Bool { actionIdentifier != SystemActionIdentifier.dismiss }

    /// `{"notificationId":"…","tappedAt":<µs>}`.
    public var persisted: [UInt8] {
        JSONValue.object([("notificationId", .string(notificationId)), ("tappedAt", .int(tappedAtMicros))]).serializedBytes()
    }

    /// Reads what `persisted` wrote; nil for a damaged file (the tap is then forgotten, never an error).
    public init?(persisted: [UInt8]) {
        guard let stored = try? JSONDecoder().decode(Persisted.self, from: Data(persisted)) else { return nil }
        self.init(notificationId: stored.notificationId, tappedAtMicros: stored.tappedAt)
    }

    private struct Persisted: Decodable {
        var notificationId: String
        var tappedAt: Int64
    }

    public static let fileName = "last-tap.json"
}
