public enum FieldRules {
    /// What is wrong with a string field, or nil: NUL characters cannot be stored, lengths are bounded.
    public static func problem(with s: String, maxBytes: Int) -> String? {
        if containsNUL(s) { return "contains a NUL character (U+0000), which cannot be stored" }
        if s.utf8.count > maxBytes { return "is \(s.utf8.count) bytes; at most \(maxBytes) are allowed" }
        return nil
    }

    /// Whether the text holds U+0000, read over its UTF-8 bytes in place: the view's iterator
    /// (`s.utf8.contains(0)`) cost about 30 instructions a byte, on every string field of every
    /// event (docs/benchmarks.md, "The collector's instructions per event (branch ingest8)").
    public static func containsNUL(_ s: String) -> Bool {
        var s = s
        return s.withUTF8 { utf8 in
            for byte in utf8 where byte == 0 { return true }
            return false
        }
    }

    /// Client-supplied text echoed in an error, cut short and without control characters.
    /// Anything shaped like an API key loses its secret first.
    public static func truncatedForEcho(_ s: String, max: Int = 64) -> String {
        let s = APIKey.redactingSecrets(in: s)
        let cleaned = String(s.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F }.prefix(max).map(Character.init))
        return s.unicodeScalars.count > max ? cleaned + "…" : cleaned
    }
}
