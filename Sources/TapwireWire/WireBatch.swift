/// The body of `POST /v1/batch` (README.md, "`POST /v1/batch`"), written once: the SDK posts
/// with it, and the demo, the benchmark and the tests build their batches with it, so none of them
/// drifts from what the collector reads (`TapwireCore/Ingest/BatchDecoder.swift`).

/// A whole batch body. `sentAt` is the time of this send, so the collector's skew correction stays
/// right on a retry days later: build the body for each attempt.
public enum WireBatch {
    /// Events already serialised (the SDK keeps them so in its queue).
    public static func encode(sentAt: Timestamp, context: WireContext, events: [[UInt8]]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(events.reduce(128) { $0 + $1.count + 1 })
        out.append(contentsOf: #"{"sentAt":"#.utf8)
        JSONValue.writeString(sentAt.description, to: &out)
        out.append(contentsOf: #","context":"#.utf8)
        out.append(contentsOf: context.json.serializedBytes())
        out.append(contentsOf: #","events":["#.utf8)
        for (i, event) in events.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            out.append(contentsOf: event)
        }
        out.append(contentsOf: "]}".utf8)
        return out
    }

    public static func encode(sentAt: Timestamp, context: WireContext, events: [WireEvent]) -> [UInt8] {
        encode(sentAt: sentAt, context: context, events: events.map { $0.json.serializedBytes() })
    }
}
