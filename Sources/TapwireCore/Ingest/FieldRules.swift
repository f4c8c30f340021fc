public enum FieldRules {
    /// What is wrong with a string field, or nil: NUL characters cannot be stored, lengths are bounded.
    public static func problem(with s: String, maxBytes: Int) -> String? {
        if s.utf8.contains(0) { return "contains a NUL character (U+0000), which cannot be stored" }
        if s.utf8.count > maxBytes { return "is \(s.utf8.count) bytes; at most \(maxBytes) are allowed" }
        return nil
    }

    /// Client-supplied text echoed in an error, cut short and without control characters.
    /// Anything shaped like an API key loses its secret first.
    public static func truncatedForEcho(_ s: String, max: Int = 64) -> String {
        let s = APIKey.redactingSecrets(in: s)
        let cleaned = String(s.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F }.prefix(max).map(Character.init))
        return s.unicodeScalars.count > max ? cleaned + "…" : cleaned
    }
}
