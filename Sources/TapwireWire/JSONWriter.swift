/// Building and serialising JSON output (API responses, reports, the SDK's batches and manifest)
/// without Foundation's JSONSerialization, so key order is stable and numbers print the same on
/// every platform, and the SDK and the collector write the same bytes for the same value.
extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral, ExpressibleByFloatLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .int(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(JSONObject(members: elements.map { (key: $0.0, value: $0.1) }))
    }
    public init(nilLiteral: ()) { self = .null }
    public init(floatLiteral value: Double) { self = .double(value) }

    public static func int<I: BinaryInteger>(_ value: I) -> JSONValue {
        .number(JSONNumber(double: Double(value), integer: Int64(clamping: value)))
    }

    /// A double; NaN and infinities have no JSON form and become null.
    public static func double(_ value: Double) -> JSONValue {
        value.isFinite ? .number(JSONNumber(double: value, integer: nil)) : .null
    }

    public static func optional(_ value: String?) -> JSONValue { value.map { .string($0) } ?? .null }
    public static func optional(_ value: Double?) -> JSONValue { value.map { .double($0) } ?? .null }
    public static func optional<I: BinaryInteger>(_ value: I?) -> JSONValue { value.map { .int($0) } ?? .null }

    public static func object(_ members: [(String, JSONValue)]) -> JSONValue {
        .object(JSONObject(members: members.map { (key: $0.0, value: $0.1) }))
    }

    /// Compact JSON, or indented by two spaces when `pretty`.
    public func serialized(pretty: Bool = false) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        write(to: &out, pretty: pretty, indent: 0)
        return String(decoding: out, as: UTF8.self)
    }

    public func serializedBytes() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        write(to: &out, pretty: false, indent: 0)
        return out
    }

    func write(to out: inout [UInt8], pretty: Bool, indent: Int) {
        switch self {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case .number(let n): out.append(contentsOf: JSONValue.format(n).utf8)
        case .string(let s): JSONValue.writeString(s, to: &out)
        case .array(let elements):
            if elements.isEmpty { out.append(contentsOf: "[]".utf8); return }
            out.append(UInt8(ascii: "["))
            for (i, element) in elements.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                if pretty { newline(&out, indent + 1) }
                element.write(to: &out, pretty: pretty, indent: indent + 1)
            }
            if pretty { newline(&out, indent) }
            out.append(UInt8(ascii: "]"))
        case .object(let object):
            if object.members.isEmpty { out.append(contentsOf: "{}".utf8); return }
            out.append(UInt8(ascii: "{"))
            for (i, member) in object.members.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                if pretty { newline(&out, indent + 1) }
                JSONValue.writeString(member.key, to: &out)
                out.append(UInt8(ascii: ":"))
                if pretty { out.append(UInt8(ascii: " ")) }
                member.value.write(to: &out, pretty: pretty, indent: indent + 1)
            }
            if pretty { newline(&out, indent) }
            out.append(UInt8(ascii: "}"))
        }
    }

    private func newline(_ out: inout [UInt8], _ indent: Int) {
        out.append(0x0A)
        out.append(contentsOf: repeatElement(UInt8(ascii: " "), count: indent * 2))
    }

    static func format(_ n: JSONNumber) -> String {
        if let integer = n.integer { return String(integer) }
        guard n.double.isFinite else { return "null" }
        if n.double == n.double.rounded(), abs(n.double) < 1e15 { return String(Int64(n.double)) }
        return "\(n.double)"
    }

    /// Writes a JSON string literal, escaping quotes, backslashes and every control character.
    public static func writeString(_ s: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        let hex = Array("0123456789abcdef".utf8)
        for byte in s.utf8 {
            switch byte {
            case 0x22: out.append(contentsOf: [0x5C, 0x22])
            case 0x5C: out.append(contentsOf: [0x5C, 0x5C])
            case 0x0A: out.append(contentsOf: [0x5C, UInt8(ascii: "n")])
            case 0x0D: out.append(contentsOf: [0x5C, UInt8(ascii: "r")])
            case 0x09: out.append(contentsOf: [0x5C, UInt8(ascii: "t")])
            case 0..<0x20:
                out.append(contentsOf: [0x5C, UInt8(ascii: "u"), 48, 48, hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    public static func quoted(_ s: String) -> String {
        var out: [UInt8] = []
        writeString(s, to: &out)
        return String(decoding: out, as: UTF8.self)
    }
}
