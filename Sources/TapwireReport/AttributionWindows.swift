import TapwireCore

/// The windows a report's conversions were attributed with (apps.direct_window and
/// influence_window, docs/outcomes.md): the report states them.
public struct AttributionWindows: Sendable, Equatable {
    public var directSeconds: Int
    public var influenceSeconds: Int

    public init(directSeconds: Int, influenceSeconds: Int) {
        self.directSeconds = directSeconds
        self.influenceSeconds = influenceSeconds
    }
}
