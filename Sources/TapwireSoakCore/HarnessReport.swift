import TapwireCore

/// What one tapwire-client-harness run printed: its last line starting with `{` is a JSON object of
/// counts. A count that is missing reads as 0.
public struct HarnessReport: Sendable, Equatable {
    public var recorded = 0, accepted = 0, duplicates = 0, rejected = 0, remaining = 0, dropped = 0

    public init() {}

    /// nil if the output has no JSON line (the harness was killed before it printed one).
    public init?(output: String) {
        guard let line = output.split(separator: "\n").last(where: { $0.hasPrefix("{") }),
              let json = try? JSONParser().parse(String(line)) else { return nil }
        func n(_ key: String) -> Int { Int(json[key]?.numberValue?.integer ?? 0) }
        recorded = n("recorded"); accepted = n("accepted"); duplicates = n("duplicates"); rejected = n("rejected")
        remaining = n("remaining"); dropped = n("dropped")
    }
}
