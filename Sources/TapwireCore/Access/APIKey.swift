/// An app's API key: `tww_<id>_<secret>` for writing (it ships inside apps), `twr_<id>_<secret>`
/// for reading reports, `twa_<id>_<secret>` for deleting (forgetting a device, docs/outcomes.md).
/// The id is public and finds the row; only SHA-256(secret) is stored.
public struct APIKey: Sendable, Equatable, CustomStringConvertible {
    public enum Kind: String, Sendable, CaseIterable {
        case write
        case read
        /// May delete an app's data (`POST /v1/devices/forget`); cannot post or read reports.
        case admin
        var letter: Character {
            switch self {
            case .write: "w"
            case .read: "r"
            case .admin: "a"
            }
        }
    }

    public var kind: Kind
    /// 16 lowercase hex characters.
    public var keyId: String
    /// 40 characters of base62.
    public var secret: String

    public init(kind: Kind, keyId: String, secret: String) {
        self.kind = kind
        self.keyId = keyId
        self.secret = secret
    }

    public var text: String { "tw\(kind.letter)_\(keyId)_\(secret)" }
    /// Safe to log and show: the kind and public id, never the secret.
    public var redacted: String { "tw\(kind.letter)_\(keyId)_…" }
    public var description: String { redacted }

    public var secretHash: [UInt8] { SHA256.hash(Array(secret.utf8)) }

    /// Parses a key as given in Basic auth. Nil for anything not shaped like a key.
    public init?(parsing text: String) {
        let parts = text.split(separator: "_", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 3, parts[0].hasPrefix("tw") else { return nil }
        guard let kind = Kind.allCases.first(where: { $0.letter == parts[0].last }) else { return nil }
        self.kind = kind
        let id = parts[1], secret = parts[2]
        guard id.count == 16, id.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) }),
              secret.count == 40, secret.utf8.allSatisfy({ $0 < 128 && APIKey.alphabet.contains($0) })
        else { return nil }
        self.keyId = String(id)
        self.secret = String(secret)
    }

    static let alphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".utf8)

    /// A new key from the system's cryptographic generator (getrandom on Linux).
    public static func generate(kind: Kind) -> APIKey {
        var generator = SystemRandomNumberGenerator()
        return generate(kind: kind, using: &generator)
    }

    public static func generate<G: RandomNumberGenerator>(kind: Kind, using generator: inout G) -> APIKey {
        let hex = Array("0123456789abcdef".utf8)
        let id = String(decoding: (0..<16).map { _ in hex[Int(generator.next() % 16)] }, as: UTF8.self)
        // 62 does not divide 2^64; rejection sampling keeps every character equally likely.
        var secret: [UInt8] = []
        while secret.count < 40 {
            let value = generator.next()
            guard value < UInt64.max - (UInt64.max % 62) else { continue }
            secret.append(alphabet[Int(value % 62)])
        }
        return APIKey(kind: kind, keyId: id, secret: String(decoding: secret, as: UTF8.self))
    }
}

extension APIKey {
    /// `text` with the secret of anything shaped like a key cut off (`tww_<id>_…`), so an error
    /// or log line quoting client input never carries a secret, wherever the client put it.
    public static func redactingSecrets(in text: String) -> String {
        let scalars = Array(text.unicodeScalars)
        guard scalars.count >= 21 else { return text }
        func isHex(_ c: Unicode.Scalar) -> Bool { ("0"..."9").contains(c) || ("a"..."f").contains(c) }
        func isBase62(_ c: Unicode.Scalar) -> Bool { c.isASCII && alphabet.contains(UInt8(c.value)) }
        var out = String.UnicodeScalarView()
        var i = 0
        while i < scalars.count {
            // "tw" + w|r|a + "_" + 16 hex + "_": keep that public part, drop the secret after it.
            if i + 21 <= scalars.count, scalars[i] == "t", scalars[i + 1] == "w", Kind.allCases.contains(where: { Character(scalars[i + 2]) == $0.letter }),
               scalars[i + 3] == "_", scalars[(i + 4)..<(i + 20)].allSatisfy(isHex), scalars[i + 20] == "_" {
                out.append(contentsOf: scalars[i..<(i + 21)])
                i += 21
                if i < scalars.count, isBase62(scalars[i]) {
                    out.append("…")
                    while i < scalars.count, isBase62(scalars[i]) { i += 1 }
                }
                continue
            }
            out.append(scalars[i])
            i += 1
        }
        return String(out)
    }
}
