/// A strict RFC 8259 parser over bytes: UTF-8 is validated, NaN and Infinity are not numbers,
/// nesting is bounded. Control characters inside strings are tolerated (and kept) so that a
/// NUL can be rejected per event with a reason instead of failing a whole batch.
public struct JSONParser {
    public var maxDepth: Int

    public init(maxDepth: Int = 32) { self.maxDepth = maxDepth }

    public func parse(_ bytes: [UInt8]) throws(JSONParseError) -> JSONValue {
        do {
            return try bytes.withUnsafeBufferPointer { buffer in
                var cursor = Cursor(bytes: buffer, maxDepth: maxDepth)
                cursor.skipWhitespace()
                let value = try cursor.parseValue(depth: 0)
                cursor.skipWhitespace()
                guard cursor.index == buffer.count else {
                    throw cursor.error(.malformed, "unexpected data after the JSON value")
                }
                return value
            }
        } catch let error as JSONParseError {
            throw error
        } catch {
            throw JSONParseError(kind: .malformed, offset: 0, message: "unparseable JSON")
        }
    }

    public func parse(_ text: String) throws(JSONParseError) -> JSONValue { try parse(Array(text.utf8)) }

    struct Cursor {
        let bytes: UnsafeBufferPointer<UInt8>
        let maxDepth: Int
        var index = 0

        init(bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int) {
            self.bytes = bytes
            self.maxDepth = maxDepth
        }

        func error(_ kind: JSONParseError.Kind, _ message: String) -> JSONParseError {
            JSONParseError(kind: kind, offset: index, message: message)
        }

        mutating func skipWhitespace() {
            while index < bytes.count {
                switch bytes[index] {
                case 0x20, 0x09, 0x0A, 0x0D: index += 1
                default: return
                }
            }
        }

        mutating func parseValue(depth: Int) throws(JSONParseError) -> JSONValue {
            guard index < bytes.count else { throw error(.malformed, "unexpected end of input") }
            switch bytes[index] {
            case UInt8(ascii: "{"): return try parseObject(depth: depth + 1)
            case UInt8(ascii: "["): return try parseArray(depth: depth + 1)
            case UInt8(ascii: "\""): return .string(try parseString())
            case UInt8(ascii: "t"): try literal("true"); return .bool(true)
            case UInt8(ascii: "f"): try literal("false"); return .bool(false)
            case UInt8(ascii: "n"): try literal("null"); return .null
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
            default: throw error(.malformed, "unexpected character")
            }
        }

        mutating func literal(_ word: StaticString) throws(JSONParseError) {
            let count = word.utf8CodeUnitCount
            guard index + count <= bytes.count else { throw error(.malformed, "unexpected end of input") }
            let start = word.utf8Start
            for k in 0..<count where bytes[index + k] != start[k] {
                throw error(.malformed, "invalid literal")
            }
            index += count
        }

        mutating func parseObject(depth: Int) throws(JSONParseError) -> JSONValue {
            guard depth <= maxDepth else { throw error(.tooDeep, "nesting deeper than \(maxDepth) levels") }
            let start = index
            index += 1
            var object = JSONObject()
            // Past a few members, repeated keys are found with a set: a linear scan per key made
            // an object of many distinct keys quadratic (minutes of CPU for one 8 MiB body).
            var seenKeys: Set<String>?
            skipWhitespace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
                index += 1
                object.byteCount = index - start
                return .object(object)
            }
            while true {
                skipWhitespace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                    throw error(.malformed, "expected a string key")
                }
                let key = try parseString()
                skipWhitespace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw error(.malformed, "expected ':'") }
                index += 1
                skipWhitespace()
                let value = try parseValue(depth: depth)
                if object.duplicateKey == nil {
                    if seenKeys == nil, object.members.count >= 16 { seenKeys = Set(object.members.map(\.key)) }
                    let repeated = seenKeys?.contains(key) ?? object.members.contains(where: { $0.key == key })
                    if repeated { object.duplicateKey = key } else { seenKeys?.insert(key) }
                }
                object.members.append((key, value))
                skipWhitespace()
                guard index < bytes.count else { throw error(.malformed, "unexpected end of input in object") }
                if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
                if bytes[index] == UInt8(ascii: "}") { index += 1; break }
                throw error(.malformed, "expected ',' or '}'")
            }
            object.byteCount = index - start
            return .object(object)
        }

        mutating func parseArray(depth: Int) throws(JSONParseError) -> JSONValue {
            guard depth <= maxDepth else { throw error(.tooDeep, "nesting deeper than \(maxDepth) levels") }
            index += 1
            var elements: [JSONValue] = []
            skipWhitespace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
                index += 1
                return .array(elements)
            }
            while true {
                skipWhitespace()
                elements.append(try parseValue(depth: depth))
                skipWhitespace()
                guard index < bytes.count else { throw error(.malformed, "unexpected end of input in array") }
                if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
                if bytes[index] == UInt8(ascii: "]") { index += 1; break }
                throw error(.malformed, "expected ',' or ']'")
            }
            return .array(elements)
        }

        mutating func parseNumber() throws(JSONParseError) -> JSONNumber {
            let start = index
            var negative = false
            if bytes[index] == UInt8(ascii: "-") { negative = true; index += 1 }
            guard index < bytes.count, bytes[index] >= 48, bytes[index] <= 57 else { throw error(.malformed, "invalid number") }
            var integer: Int64? = 0
            if bytes[index] == 48 {
                index += 1
            } else {
                while index < bytes.count, bytes[index] >= 48, bytes[index] <= 57 {
                    let digit = Int64(bytes[index] - 48)
                    if let value = integer {
                        let (m, o1) = value.multipliedReportingOverflow(by: 10)
                        let (a, o2) = negative ? m.subtractingReportingOverflow(digit) : m.addingReportingOverflow(digit)
                        integer = (o1 || o2) ? nil : a
                    }
                    index += 1
                }
            }
            var isInteger = true
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
                isInteger = false
                index += 1
                guard index < bytes.count, bytes[index] >= 48, bytes[index] <= 57 else { throw error(.malformed, "invalid number") }
                while index < bytes.count, bytes[index] >= 48, bytes[index] <= 57 { index += 1 }
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
                isInteger = false
                index += 1
                if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
                guard index < bytes.count, bytes[index] >= 48, bytes[index] <= 57 else { throw error(.malformed, "invalid number") }
                while index < bytes.count, bytes[index] >= 48, bytes[index] <= 57 { index += 1 }
            }
            if isInteger, let exact = integer { return JSONNumber(double: Double(exact), integer: exact) }
            let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
            return JSONNumber(double: Double(text) ?? (negative ? -.infinity : .infinity), integer: nil)
        }

        mutating func parseString() throws(JSONParseError) -> String {
            index += 1 // opening quote
            let start = index
            // Fast path: no escapes. Validate UTF-8 and slice.
            var sawEscape = false
            var sawNonASCII = false
            while index < bytes.count {
                let c = bytes[index]
                if c == UInt8(ascii: "\"") { break }
                if c == UInt8(ascii: "\\") { sawEscape = true; break }
                if c >= 0x80 { sawNonASCII = true }
                index += 1
            }
            if !sawEscape {
                guard index < bytes.count else { throw error(.malformed, "unterminated string") }
                let slice = UnsafeBufferPointer(rebasing: bytes[start..<index])
                if sawNonASCII, !UTF8Validation.isValid(slice) {
                    index = start
                    throw error(.invalidUTF8, "invalid UTF-8 in string")
                }
                index += 1
                return String(decoding: slice, as: UTF8.self)
            }
            // Slow path: decode escapes into a byte buffer.
            var out: [UInt8] = []
            out.reserveCapacity(index - start + 16)
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<index]))
            while true {
                guard index < bytes.count else { throw error(.malformed, "unterminated string") }
                let c = bytes[index]
                if c == UInt8(ascii: "\"") { index += 1; break }
                if c != UInt8(ascii: "\\") { out.append(c); index += 1; continue }
                index += 1
                guard index < bytes.count else { throw error(.malformed, "unterminated escape") }
                let e = bytes[index]
                index += 1
                switch e {
                case UInt8(ascii: "\""): out.append(0x22)
                case UInt8(ascii: "\\"): out.append(0x5C)
                case UInt8(ascii: "/"): out.append(0x2F)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try hex4()
                    if (0xD800...0xDBFF).contains(scalar) {
                        guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                            throw error(.invalidUTF8, "unpaired UTF-16 surrogate escape")
                        }
                        index += 2
                        let low = try hex4()
                        guard (0xDC00...0xDFFF).contains(low) else { throw error(.invalidUTF8, "unpaired UTF-16 surrogate escape") }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00...0xDFFF).contains(scalar) {
                        throw error(.invalidUTF8, "unpaired UTF-16 surrogate escape")
                    }
                    UTF8Validation.append(scalar: scalar, to: &out)
                default:
                    throw error(.malformed, "invalid escape")
                }
            }
            let valid = out.withUnsafeBufferPointer { UTF8Validation.isValid($0) }
            guard valid else { throw error(.invalidUTF8, "invalid UTF-8 in string") }
            return String(decoding: out, as: UTF8.self)
        }

        mutating func hex4() throws(JSONParseError) -> UInt32 {
            guard index + 4 <= bytes.count else { throw error(.malformed, "truncated \\u escape") }
            var value: UInt32 = 0
            for _ in 0..<4 {
                let c = bytes[index]
                let v: UInt32
                switch c {
                case 48...57: v = UInt32(c - 48)
                case 97...102: v = UInt32(c - 87)
                case 65...70: v = UInt32(c - 55)
                default: throw error(.malformed, "invalid \\u escape")
                }
                value = value << 4 | v
                index += 1
            }
            return value
        }
    }
}
