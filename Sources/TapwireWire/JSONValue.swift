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

/// A JSON number: its double value, and the exact integer when the literal is one that fits.
public struct JSONNumber: Sendable, Equatable {
    public var double: Double
    public var integer: Int64?
    public init(double: Double, integer: Int64?) {
        self.double = double
        self.integer = integer
    }
}

public struct JSONObject: Sendable, Equatable {
    public var members: [(key: String, value: JSONValue)]
    /// The first key that appeared twice, if any.
    public var duplicateKey: String?
    /// How many bytes of the source document the object spans, braces included.
    public var byteCount: Int

    public init(members: [(key: String, value: JSONValue)] = [], duplicateKey: String? = nil, byteCount: Int = 0) {
        self.members = members
        self.duplicateKey = duplicateKey
        self.byteCount = byteCount
    }

    public subscript(key: String) -> JSONValue? {
        for member in members where member.key == key { return member.value }
        return nil
    }

    public static func == (a: JSONObject, b: JSONObject) -> Bool {
        a.duplicateKey == b.duplicateKey && a.members.count == b.members.count
            && zip(a.members, b.members).allSatisfy { $0.key == $1.key && $0.value == $1.value }
    }
}
