import TapwireZlib

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
