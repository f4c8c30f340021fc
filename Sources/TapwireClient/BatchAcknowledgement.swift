/// A 200 answer to `POST /v1/batch`: every event of the batch is durably stored, a duplicate, or
/// listed in `rejected`.
public struct BatchAcknowledgement: Sendable, Equatable {
    public var accepted: Int
    public var duplicates: Int
    public var rejected: [BatchRejection]

    public init(accepted: Int, duplicates: Int, rejected: [BatchRejection] = []) {
        self.accepted = accepted
        self.duplicates = duplicates
        self.rejected = rejected
    }
}
