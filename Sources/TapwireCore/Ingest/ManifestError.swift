public struct ManifestError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable {
        case malformedJSON = "malformed_json"
        case invalidUTF8 = "invalid_utf8"
        case invalidManifest = "invalid_manifest"
    }
    public var code: Code
    public var message: String
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }
    public var description: String { "\(code.rawValue): \(message)" }
}
