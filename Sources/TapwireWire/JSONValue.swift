/// A JSON document: what the core's parser reads and what `JSONWriter.swift` writes (the
/// collector's answers, the SDK's bodies, the manifest's canonical form). Objects keep member order
/// and remember a repeated key instead of silently keeping one of the values, so validation can
/// reject it with a reason.
public indirect enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case number(JSONNumber)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    public var stringValue: String? { if case .string(let s) = self { return s } else { return nil } }
    public var boolValue: Bool? { if case .bool(let b) = self { return b } else { return nil } }
    public var numberValue: JSONNumber? { if case .number(let n) = self { return n } else { return nil } }
    public var arrayValue: [JSONValue]? { if case .array(let a) = self { return a } else { return nil } }
    public var objectValue: JSONObject? { if case .object(let o) = self { return o } else { return nil } }
    public var isNull: Bool { if case .null = self { return true } else { return false } }

    /// The JSON type name, for error messages ("expected a string, got number").
    public var typeName: String {
        switch self {
        case .null: return "null"
        case .bool: return "boolean"
        case .number: return "number"
        case .string: return "string"
        case .array: return "array"
        case .object: return "object"
        }
    }

    public subscript(key: String) -> JSONValue? { objectValue?[key] }
}
