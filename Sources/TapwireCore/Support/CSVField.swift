/// CSV for every export the product writes (the engagement report and the mismatch list, over
/// HTTP and from the CLI): RFC 4180 quoting plus the spreadsheet-formula guard, because category,
/// action and campaign names come from devices.
///
/// The guard: a cell whose first character is `=`, `+`, `-`, `@`, TAB or CR would be run as a
/// formula (or start a DDE payload) when the file is opened, so it gets a leading `'` and stays
/// text. The one exception is a genuine negative number written as `-digits[.digits][e[+-]digits]`
/// (how the renderers print values such as `-3.5` or `-1e-05`): a spreadsheet reads it as a
/// number, it cannot call anything, and quoting it would turn the column into text. Anything else
/// starting with `-` (`-cmd`, `-1+1`) and every `+…` (the renderers never write a leading `+`) is
/// guarded.
public enum CSVField {
    public static func escape(_ value: String) -> String {
        var v = value
        if let first = v.unicodeScalars.first, "=+-@\t\r".unicodeScalars.contains(first), !isNegativeNumber(v) { v = "'" + v }
        if v.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) {
            return "\"" + v.flatMap { $0 == "\"" ? ["\"", "\""] : [$0] } + "\""
        }
        return v
    }

    /// `-digits[.digits][(e|E)[+-]digits]`, ASCII only, and nothing else.
    static func isNegativeNumber(_ text: String) -> Bool {
        var bytes = Substring(text).utf8[...]
        guard bytes.popFirst() == UInt8(ascii: "-") else { return false }
        func digits() -> Int {
            var n = 0
            while let b = bytes.first, b >= UInt8(ascii: "0"), b <= UInt8(ascii: "9") { bytes.removeFirst(); n += 1 }
            return n
        }
        guard digits() > 0 else { return false }
        if bytes.first == UInt8(ascii: ".") {
            bytes.removeFirst()
            guard digits() > 0 else { return false }
        }
        if bytes.first == UInt8(ascii: "e") || bytes.first == UInt8(ascii: "E") {
            bytes.removeFirst()
            if bytes.first == UInt8(ascii: "+") || bytes.first == UInt8(ascii: "-") { bytes.removeFirst() }
            guard digits() > 0 else { return false }
        }
        return bytes.isEmpty
    }
}
