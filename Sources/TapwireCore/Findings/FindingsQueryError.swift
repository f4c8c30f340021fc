/// Why a findings query was refused (`FindingsQuery.parse`). The code is stable; the message
/// names the parameter as the caller spelt it and says the fix. The API answers 400 with it, the
/// CLI exits 2 with it.
public struct FindingsQueryError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// Not a time, a severity or a boolean.
        case invalidValue = "invalid_value"
        /// Two parameters that cannot go together (`at` and `until`, `fresh` and `at`).
        case conflicting
        /// An instant too far in the future, a window that ends before it starts or lasts over 400 days.
        case outOfRange = "out_of_range"
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
