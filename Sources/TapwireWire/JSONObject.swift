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
