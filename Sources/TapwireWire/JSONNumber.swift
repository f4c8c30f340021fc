/// A JSON number: its double value, and the exact integer when the literal is one that fits.
public struct JSONNumber: Sendable, Equatable {
    public var double: Double
    public var integer: Int64?
    public init(double: Double, integer: Int64?) {
        self.double = double
        self.integer = integer
    }
}
