import Foundation
import TapwireCore

enum BasicAuth {
    /// The key from `Authorization: Basic base64(key:)`; the password part is ignored (Segment's
    /// convention: the write key is the username). Nil when absent or not shaped like a key.
    static func key(from header: String?) -> APIKey? {
        guard let header else { return nil }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "basic",
              let data = Data(base64Encoded: String(parts[1]).trimmingCharacters(in: [" "])),
              let decoded = String(data: data, encoding: .utf8)
        else { return nil }
        let username = decoded.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
        return APIKey(parsing: username)
    }
}
