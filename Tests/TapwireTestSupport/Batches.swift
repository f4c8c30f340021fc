import Foundation
import TapwireCore

/// Builds wire-format batches for tests.
public enum TestBatch {
    /// A delivered or response event as a JSON object, with a fresh UUIDv7 unless given.
    public static func event(_ type: String = "delivered", id: EventID = .v7(at: .now), at time: Timestamp = .now,
                             category: String = "message", _ extra: [(String, JSONValue)] = []) -> JSONValue {
        var members: [(String, JSONValue)] = [("eventId", .string(id.description)), ("type", .string(type)),
                                              ("timestamp", .string(time.description)), ("category", .string(category))]
        members += extra
        return .object(members)
    }

    public static func body(_ events: [JSONValue], sentAt: Timestamp? = .now,
                            context: [(String, JSONValue)] = [("appVersion", "1.0"), ("platform", "iOS")]) -> [UInt8] {
        var members: [(String, JSONValue)] = []
        if let sentAt { members.append(("sentAt", .string(sentAt.description))) }
        members.append(("context", .object(context)))
        members.append(("events", .array(events)))
        return JSONValue.object(members).serializedBytes()
    }
}

/// Waits until `condition` holds or the timeout passes; returns whether it held.
public func eventually(timeout: Double = 10, poll: Double = 0.05, _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if try condition() { return true }
        Thread.sleep(forTimeInterval: poll)
    }
    return try condition()
}
