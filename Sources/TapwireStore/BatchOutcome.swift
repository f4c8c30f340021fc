/// How one request's events fared in a group commit.
public struct BatchOutcome: Sendable, Equatable {
    public var stored: Int
    public var duplicates: Int
    public init(stored: Int, duplicates: Int) {
        self.stored = stored
        self.duplicates = duplicates
    }
}
