import TapwireCore
import TapwireStatistics
import TapwireZlib

/// Seed inputs: valid batches and manifests, plus the hostile shapes the README's table lists,
/// so the mutator starts next to every boundary instead of having to discover JSON.
public enum FuzzSeeds {
    static let t = "2026-12-01T10:00:01.000Z"

    static func event(_ n: Int, type: String = "delivered", extra: String = "") -> String {
        let id = String(format: "01938a2e-7b1c-7d3e-9f00-%012x", n)
        var text = #"{"eventId":"\#(id)","type":"\#(type)","timestamp":"\#(t)","notificationId":"apns-\#(n)","category":"message""#
        if type == "response" { text += #","actionIdentifier":"reply","userTextLength":14,"deliveredAt":"2026-12-01T10:00:00.000Z""# }
        else { text += #","hasMedia":true,"mediaTypes":["image"],"mediaRequested":true,"categoryRegistered":true,"campaign":"winter","variant":"B""# }
        return text + extra + "}"
    }

    static func batch(_ events: [String], sentAt: String = "2026-12-01T10:00:05.120Z") -> String {
        #"{"sentAt":"\#(sentAt)","context":{"appVersion":"3.2.1","build":"412","platform":"iOS","osVersion":"18.1","sdk":"tapwire-swift/1.0"},"events":[\#(events.joined(separator: ","))]}"#
    }

    static let manifest = #"{"appVersion":"3.2.1","categories":[{"identifier":"message","title":"Messages","options":["customDismissAction","allowInCarPlay"],"actions":[{"identifier":"reply","title":"Reply","options":["foreground"],"textInput":true},{"identifier":"delete","options":["destructive"]}]},{"identifier":"social_post","options":[],"actions":[{"identifier":"like","options":[]}]}]}"#

    /// Payloads (before the header byte), each a named shape.
    public static var payloads: [(name: String, target: FuzzInput.Target, text: [UInt8])] {
        var out: [(String, FuzzInput.Target, [UInt8])] = []
        func add(_ name: String, _ text: String, _ target: FuzzInput.Target = .batch) { out.append((name, target, Array(text.utf8))) }
        add("valid", batch([event(1), event(2, type: "response"), event(3, type: "sent")]))
        add("manifest", manifest, .manifest)
        add("duplicate keys", batch([event(4, extra: #","category":"other""#)]))
        add("wrong types", batch([#"{"eventId":7,"type":["delivered"],"timestamp":true,"category":{},"hasMedia":"yes"}"#]))
        add("negative length", batch([event(5, type: "response", extra: "").replacingOccurrences(of: "14", with: "-1")]))
        add("huge numbers", batch([event(6, type: "response").replacingOccurrences(of: "14", with: "1e308"),
                                   event(7, type: "response").replacingOccurrences(of: "14", with: "123456789012345678901234567890")]))
        add("NaN", batch([event(8, type: "response").replacingOccurrences(of: "14", with: "NaN")]))
        add("year 9999", batch([event(9).replacingOccurrences(of: "2026-12-01T10:00:01", with: "9999-12-31T23:59:59")], sentAt: "9999-12-31T23:59:59Z"))
        add("year 1970", batch([event(10).replacingOccurrences(of: "2026-12-01T10:00:01", with: "1970-01-01T00:00:00")]))
        add("deliveredAt year 0", batch([event(11, type: "response").replacingOccurrences(of: "2026-12-01T10:00:00.000Z", with: "0000-01-01T00:00:00Z")
                                        .replacingOccurrences(of: "2026-12-01T10:00:01", with: "9999-12-31T23:59:59")],
                                       sentAt: "9999-12-31T23:59:59Z"))
        add("NUL", batch([event(12).replacingOccurrences(of: "message", with: "mes\\u0000sage")]))
        add("invalid UTF-8 escape", batch([event(13).replacingOccurrences(of: "message", with: "\\ud800x")]))
        add("hostile strings", batch([event(14).replacingOccurrences(of: "message", with: #"q\"uo\\te\ttab\nnl\n\\.\nżółw🙂"#)]))
        add("nested", String(repeating: "[", count: 40) + String(repeating: "]", count: 40))
        add("nested object", batch([event(15, extra: #","x":"# + String(repeating: #"{"a":"#, count: 33) + "1" + String(repeating: "}", count: 33))]))
        add("many events", batch((0..<40).map { event(100 + $0) }))
        add("not an object", "[1,2,3]")
        add("empty", "")
        return out.map { (name: $0.0, target: $0.1, text: $0.2) }
    }

    /// Seed inputs with a header byte, in several wire encodings each.
    public static var inputs: [[UInt8]] {
        var out: [[UInt8]] = []
        for (i, seed) in payloads.enumerated() {
            for wire in [FuzzInput.Wire.identity, .gzipOfPayload, .rawDeflateOfPayload] {
                out.append(FuzzInput(target: seed.target, wire: wire, chunkSizes: FuzzInput.chunkPatterns[i % FuzzInput.chunkPatterns.count],
                                     payload: seed.text).bytes)
            }
        }
        return out
    }

    /// Tokens worth splicing in: JSON structure, field names, boundary values.
    public static let dictionary: [[UInt8]] = [
        "{", "}", "[", "]", ",", ":", "\"", "\\", "\\u0000", "\\ud800", "\\udc00", "\\uD83D\\uDE00", "\\\"", "\\n", "\\.",
        "null", "true", "false", "0", "-0", "-1", "1e308", "1e999", "-1e999", "NaN", "Infinity", "0.5", "9223372036854775808",
        "1048576", "1048577", "2147483648", "\"eventId\"", "\"type\"", "\"timestamp\"", "\"category\"", "\"actionIdentifier\"",
        "\"userTextLength\"", "\"hasMedia\"", "\"mediaTypes\"", "\"deliveredAt\"", "\"sentAt\"", "\"context\"", "\"events\"",
        "\"response\"", "\"delivered\"", "\"sent\"", "\"9999-12-31T23:59:59Z\"", "\"0000-01-01T00:00:00Z\"", "\"1970-01-01T00:00:00Z\"",
        "\"2026-12-01T10:00:01+14:00\"", "\"2026-02-29\"", "\"2026-12-01T24:00:00Z\"", "\"appVersion\"", "\"categories\"", "\"identifier\"",
        "\"actions\"", "\"options\"", "\"textInput\"", "\"title\"",
    ].map { Array($0.utf8) } + [[0xC0, 0x80], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xFF], [0x00], [0x1F, 0x8B, 0x08, 0x00]]
}

/// A seeded structure-aware mutator: byte edits, dictionary splices, block copies, truncation,
/// and generators for shapes too big for a byte mutator to reach (many keys, long strings,
/// deep nesting, bombs).
public struct Mutator {
    var random: SeededGenerator

    public init(seed: UInt64) { random = SeededGenerator(seed: seed) }

    mutating func below(_ n: Int) -> Int { n <= 1 ? 0 : Int(random.next() % UInt64(n)) }

    /// A new input derived from `base` (and sometimes `other`, for crossover).
    public mutating func mutate(_ base: [UInt8], other: [UInt8]) -> [UInt8] {
        var header = base.first ?? 0
        var payload = Array(base.dropFirst())
        let rounds = 1 + below(4)
        for _ in 0..<rounds {
            switch below(12) {
            case 0 where !payload.isEmpty: payload[below(payload.count)] ^= UInt8(1 << below(8))
            case 1 where !payload.isEmpty: payload[below(payload.count)] = UInt8(truncatingIfNeeded: random.next())
            case 2:
                let token = FuzzSeeds.dictionary[below(FuzzSeeds.dictionary.count)]
                payload.insert(contentsOf: token, at: below(payload.count + 1))
            case 3 where !payload.isEmpty:
                let token = FuzzSeeds.dictionary[below(FuzzSeeds.dictionary.count)]
                let at = below(payload.count)
                payload.replaceSubrange(at..<min(payload.count, at + token.count), with: token)
            case 4 where !payload.isEmpty:
                let at = below(payload.count)
                payload.removeSubrange(at..<min(payload.count, at + 1 + below(16)))
            case 5 where !payload.isEmpty:
                let at = below(payload.count), length = min(payload.count - at, 1 + below(64))
                let block = Array(payload[at..<at + length])
                payload.insert(contentsOf: block, at: below(payload.count + 1))
            case 6 where !payload.isEmpty: payload = Array(payload.prefix(below(payload.count)))
            case 7:
                let tail = Array(other.dropFirst())
                if !tail.isEmpty, !payload.isEmpty {
                    let cut = below(payload.count), from = below(tail.count)
                    payload = Array(payload[..<cut]) + Array(tail[from...])
                }
            case 8: header = UInt8(truncatingIfNeeded: random.next())
            case 9: header = (header & 0x0F) | UInt8(below(16) << 4)
            case 10 where !payload.isEmpty:
                // Swap a run of digits for a boundary number.
                let numbers = ["0", "-1", "32768", "1048576", "1048577", "99999999999999999999", "1e-400", "4.9e-324", "-9223372036854775808"]
                let at = below(payload.count)
                payload.replaceSubrange(at..<min(payload.count, at + 1 + below(3)), with: Array(numbers[below(numbers.count)].utf8))
            default:
                if below(8) == 0 { return generated() }
            }
        }
        return [header] + payload
    }

    /// Big hostile shapes, scaled by a random size.
    public mutating func generated() -> [UInt8] {
        let gzip = UInt8(FuzzInput.Wire.gzipOfPayload.rawValue << 1)
        switch below(8) {
        case 0: return [gzip] + FuzzShapes.manyKeys(count: 1000 + below(200_000))
        case 1: return [gzip] + FuzzShapes.longString(bytes: 1000 + below(10 << 20), inField: below(2) == 0 ? "category" : "sdk")
        case 2: return [gzip] + FuzzShapes.nesting(depth: 1 + below(100_000))
        case 3: return [UInt8(FuzzInput.Wire.payloadAsGzip.rawValue << 1)] + FuzzShapes.gzipBomb(megabytes: 1 + below(64))
        case 4: return [gzip] + FuzzShapes.manyEvents(count: 1 + below(2100))
        case 5: return [gzip] + FuzzShapes.longNumber(digits: 1 + below(2_000_000))
        case 6: return [gzip | 1] + FuzzShapes.manyCategories(count: 1 + below(600))
        default: return [gzip] + FuzzShapes.duplicateLongKey(bytes: 1 + below(30_000), events: 1 + below(200))
        }
    }
}

/// Generators of large hostile payloads (also used by the regression tests).
public enum FuzzShapes {
    /// One top-level object with `count` distinct keys besides "events".
    public static func manyKeys(count: Int) -> [UInt8] {
        var out = Array(#"{"events":[]"#.utf8)
        out.reserveCapacity(count * 12)
        for i in 0..<count { out += Array(#","k\#(i)":0"#.utf8) }
        return out + [UInt8(ascii: "}")]
    }

    public static func longString(bytes: Int, inField field: String) -> [UInt8] {
        let long = String(repeating: "a", count: bytes)
        if field == "sdk" { return Array(FuzzSeeds.batch([FuzzSeeds.event(1)]).replacingOccurrences(of: "tapwire-swift/1.0", with: long).utf8) }
        return Array(FuzzSeeds.batch([FuzzSeeds.event(1).replacingOccurrences(of: "\"message\"", with: "\"\(long)\"")]).utf8)
    }

    public static func nesting(depth: Int) -> [UInt8] {
        Array(#"{"events":["#.utf8) + [UInt8](repeating: UInt8(ascii: "["), count: depth) + [UInt8](repeating: UInt8(ascii: "]"), count: depth) + Array("]}".utf8)
    }

    /// gzip members of zeros, concatenated up to about 1 MiB on the wire.
    public static func gzipBomb(megabytes: Int) -> [UInt8] {
        let member = (try? Zlib.compress([UInt8](repeating: 0, count: megabytes << 20), format: .gzip, level: 9)) ?? []
        var bomb: [UInt8] = []
        repeat { bomb += member } while bomb.count + member.count < (1 << 20) - 1024
        return bomb
    }

    public static func manyEvents(count: Int) -> [UInt8] {
        Array(FuzzSeeds.batch((0..<count).map { FuzzSeeds.event($0) }).utf8)
    }

    public static func longNumber(digits: Int) -> [UInt8] {
        Array(FuzzSeeds.batch([FuzzSeeds.event(1, type: "response").replacingOccurrences(of: "14", with: String(repeating: "7", count: digits))]).utf8)
    }

    public static func manyCategories(count: Int) -> [UInt8] {
        let categories = (0..<count).map { #"{"identifier":"c\#($0)","options":["customDismissAction"],"actions":[{"identifier":"a","options":[]}]}"# }
        return Array(#"{"appVersion":"1.0","categories":[\#(categories.joined(separator: ","))]}"#.utf8)
    }

    /// Events whose one repeated key is very long: the rejection must not echo it whole.
    public static func duplicateLongKey(bytes: Int, events: Int) -> [UInt8] {
        let key = String(repeating: "k", count: bytes)
        return Array(FuzzSeeds.batch((0..<events).map { FuzzSeeds.event($0, extra: #","\#(key)":1,"\#(key)":2"#) }).utf8)
    }
}
