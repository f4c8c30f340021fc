public struct HTTPServerError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}
