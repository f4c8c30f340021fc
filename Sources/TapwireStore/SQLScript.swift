/// A script of SQL statements split at its top-level semicolons, so each statement can be sent on
/// its own. Migrations run this way: Citus forwards a multi-statement string holding DDL on a
/// distributed table (CREATE INDEX, ALTER TABLE) to the workers as one prepared statement, which
/// they refuse ("cannot insert multiple commands into a prepared statement"; docs/deployment.md,
/// "Where PostgreSQL and Citus differ").
///
/// The lexer knows what PostgreSQL's does about where a statement ends: `--` and nested `/* */`
/// comments, 'strings' (with '' inside), E'strings' (with backslash escapes), "identifiers" and
/// dollar-quoted bodies ($$ … $$, $fn$ … $fn$), where a semicolon does not end anything. It does
/// not handle `BEGIN ATOMIC … END` function bodies, which hold semicolons of their own: no
/// migration uses one (`SQLScriptTests` checks).
struct SQLScript: Sendable, Equatable {
    /// One statement: its text as written (with the comments before it), without the semicolon.
    struct Statement: Sendable, Equatable {
        var text: String
        /// The text from its first token on: what it does, without the comments before it.
        var head: Substring {
            var rest = Substring(text)
            while true {
                rest = rest.drop(while: \.isWhitespace)
                if rest.hasPrefix("--") {
                    rest = rest.drop(while: { $0 != "\n" })
                } else if rest.hasPrefix("/*") {
                    // Block comments nest.
                    var depth = 0
                    while !rest.isEmpty {
                        if rest.hasPrefix("/*") { depth += 1; rest = rest.dropFirst(2) }
                        else if rest.hasPrefix("*/") { depth -= 1; rest = rest.dropFirst(2); if depth == 0 { break } }
                        else { rest = rest.dropFirst() }
                    }
                } else {
                    return rest
                }
            }
        }
    }

    var statements: [Statement]

    init(_ text: String) {
        let bytes = Array(text.utf8)
        statements = Self.split(bytes).compactMap { range in
            let statement = Statement(text: String(decoding: bytes[range], as: UTF8.self))
            return statement.head.isEmpty ? nil : statement
        }
    }

    /// The byte ranges of the statements, each up to (not including) its top-level semicolon.
    private static func split(_ bytes: [UInt8]) -> [Range<Int>] {
        var ranges: [Range<Int>] = []
        var start = 0
        var i = 0
        let n = bytes.count
        func at(_ k: Int) -> UInt8 { k < n ? bytes[k] : 0 }
        while i < n {
            let c = bytes[i]
            switch c {
            case UInt8(ascii: "-") where at(i + 1) == UInt8(ascii: "-"):
                while i < n, bytes[i] != UInt8(ascii: "\n") { i += 1 }
            case UInt8(ascii: "/") where at(i + 1) == UInt8(ascii: "*"):
                var depth = 1
                i += 2
                while i < n, depth > 0 {
                    if bytes[i] == UInt8(ascii: "/"), at(i + 1) == UInt8(ascii: "*") { depth += 1; i += 2 }
                    else if bytes[i] == UInt8(ascii: "*"), at(i + 1) == UInt8(ascii: "/") { depth -= 1; i += 2 }
                    else { i += 1 }
                }
            case UInt8(ascii: "'"):
                // E'…' (the E just before, not part of a longer word) takes backslash escapes.
                let escapes = i > 0 && (bytes[i - 1] | 0x20) == UInt8(ascii: "e") && (i < 2 || !isWordByte(bytes[i - 2]))
                i += 1
                while i < n {
                    if escapes, bytes[i] == UInt8(ascii: "\\") { i += 2; continue }
                    if bytes[i] == UInt8(ascii: "'") {
                        if at(i + 1) == UInt8(ascii: "'") { i += 2; continue }
                        break
                    }
                    i += 1
                }
                i += 1
            case UInt8(ascii: "\""):
                i += 1
                while i < n {
                    if bytes[i] == UInt8(ascii: "\"") {
                        if at(i + 1) == UInt8(ascii: "\"") { i += 2; continue }
                        break
                    }
                    i += 1
                }
                i += 1
            case UInt8(ascii: "$") where !(i > 0 && isWordByte(bytes[i - 1])):
                // $tag$ or $$; $1 is a parameter. The tag is a word that does not start with a digit.
                var j = i + 1
                while j < n, isWordByte(bytes[j]), !(j == i + 1 && isDigit(bytes[j])) { j += 1 }
                guard at(j) == UInt8(ascii: "$") else { i += 1; continue }
                let tag = Array(bytes[i...j])
                i = j + 1
                while i < n, !(bytes[i] == UInt8(ascii: "$") && Array(bytes[i..<min(n, i + tag.count)]) == tag) { i += 1 }
                i = min(n, i + tag.count)
            case UInt8(ascii: ";"):
                ranges.append(start..<i)
                i += 1
                start = i
            default:
                i += 1
            }
        }
        if start < n { ranges.append(start..<n) }
        return ranges
    }

    private static func isDigit(_ c: UInt8) -> Bool { c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9") }

    private static func isWordByte(_ c: UInt8) -> Bool {
        isDigit(c) || ((c | 0x20) >= UInt8(ascii: "a") && (c | 0x20) <= UInt8(ascii: "z")) || c == UInt8(ascii: "_") || c >= 0x80
    }
}
