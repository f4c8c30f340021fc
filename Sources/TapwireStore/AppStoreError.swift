public struct AppStoreError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable {
        case invalidName = "invalid_app_name"
        case duplicateName = "app_exists"
        case unknownApp = "unknown_app"
    }
    public var code: Code
    public var message: String
    public var description: String { message }
}
