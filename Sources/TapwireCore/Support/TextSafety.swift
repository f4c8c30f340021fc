/// Device-sent identifiers may hold control characters; a terminal must not execute them.
public enum TextSafety {
    public static func printable(_ s: String) -> String {
        String(String.UnicodeScalarView(s.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? "?" : $0 }))
    }
}
