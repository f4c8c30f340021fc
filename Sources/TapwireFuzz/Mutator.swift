import TapwireCore
import TapwireStatistics
import TapwireZlib

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
