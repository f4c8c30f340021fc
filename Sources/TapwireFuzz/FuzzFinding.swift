import Foundation

/// An invariant of the body decoder that an input broke.
public struct FuzzFinding: Error, Sendable, CustomStringConvertible {
    public var invariant: String
    public var detail: String
    public var description: String { "\(invariant): \(detail)" }
}
