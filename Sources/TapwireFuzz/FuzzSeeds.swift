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
        let purchase = #","name":"purchase","value":12.5,"currency":"EUR","deviceId":"install-1""#
        add("conversion", batch([event(16, type: "conversion", extra: purchase), event(17, type: "conversion", extra: #","name":"signup""#)]))
        add("conversion edges", batch([event(18, type: "conversion", extra: purchase.replacingOccurrences(of: "12.5", with: "1e999")),
                                       event(19, type: "conversion", extra: purchase.replacingOccurrences(of: "12.5", with: "-0")),
                                       event(20, type: "conversion", extra: purchase.replacingOccurrences(of: "12.5", with: "1000000000.5")),
                                       event(21, type: "conversion", extra: purchase.replacingOccurrences(of: "EUR", with: "eur")),
                                       event(22, type: "conversion", extra: #","name":"","currency":"EUR""#),
                                       event(23, extra: purchase)]))
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
        "\"actions\"", "\"options\"", "\"textInput\"", "\"title\"", "\"conversion\"", "\"name\"", "\"value\"", "\"currency\"",
        "\"deviceId\"", "\"EUR\"", "1000000000", "1000000000.5",
    ].map { Array($0.utf8) } + [[0xC0, 0x80], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xFF], [0x00], [0x1F, 0x8B, 0x08, 0x00]]
}
