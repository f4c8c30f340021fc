import Testing
@testable import TapwireZlib

/// Text of eight letters in a reproducible pseudo-random order: compressible, but not trivially.
func letters(_ count: Int) -> [UInt8] {
    var state: UInt32 = 42
    return (0..<count).map { _ in
        state = state &* 1_664_525 &+ 1_013_904_223  // Numerical Recipes' LCG
        return UInt8(97 + (state >> 24) % 8)
    }
}

@Suite struct ZlibTests {
    @Test func gzipRoundTripsAndHasAGzipHeader() throws {
        let text = letters(5000)
        let compressed = try Zlib.compress(text, format: .gzip)
        #expect(compressed[0] == 0x1f && compressed[1] == 0x8b)
        #expect(compressed.count < text.count)
        #expect(try Zlib.decompress(compressed) == text)
        // The trailer holds CRC-32 and ISIZE of the input, little-endian.
        let n = compressed.count
        let crc = UInt32(compressed[n - 8]) | UInt32(compressed[n - 7]) << 8 | UInt32(compressed[n - 6]) << 16 | UInt32(compressed[n - 5]) << 24
        #expect(crc == Zlib.crc32(text))
        #expect(try Zlib.decompress(Zlib.compress([], format: .gzip)) == [])
    }

    @Test func decompressRefusesTruncatedCorruptAndOversizedInput() throws {
        let compressed = try Zlib.compress(Array(repeating: 65, count: 100_000), format: .gzip)
        #expect(throws: Zlib.Failure.self) { try Zlib.decompress(Array(compressed.dropLast(10))) }
        var corrupt = compressed
        corrupt[12] ^= 0xFF
        #expect(throws: Zlib.Failure.self) { try Zlib.decompress(corrupt) }
        do {
            _ = try Zlib.decompress(compressed, maxOutput: 1000)
            Issue.record("expected tooLarge")
        } catch {
            #expect(error.code == .tooLarge)
        }
    }

    @Test func crc32CheckValue() {
        #expect(Zlib.crc32(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(Zlib.crc32(Array("6789".utf8), initial: Zlib.crc32(Array("12345".utf8))) == 0xCBF4_3926)
    }

    @Test func eachFormatHasItsHeader() throws {
        let text = letters(1000)
        let zlib = try Zlib.compress(text, format: .zlib)
        // RFC 1950: CMF says deflate with a 32 KiB window, and CMF·256 + FLG is a multiple of 31.
        #expect(zlib[0] == 0x78 && (UInt16(zlib[0]) << 8 | UInt16(zlib[1])) % 31 == 0)
        #expect(try Zlib.decompress(zlib) == text)
        let raw = try Zlib.compress(text, format: .rawDeflate)
        #expect(raw.count < zlib.count)
        #expect(try inflate([raw], .deflate) == text)
    }
}

/// Feeds `chunks` to a streaming inflater as a body would arrive.
func inflate(_ chunks: [[UInt8]], _ format: Inflater.Format, limit: Int = 1 << 20) throws(InflateError) -> [UInt8] {
    let inflater = Inflater(format: format, limit: limit)
    for chunk in chunks { try inflater.feed(chunk) }
    try inflater.finish()
    return inflater.output
}

/// The collector's body decoder: the same bytes in any split decode the same, and the cap holds
/// however the body arrives.
@Suite struct InflaterTests {
    @Test(arguments: [1, 2, 7, 512, 100_000])
    func anySplitDecodesTheSame(size: Int) throws {
        let text = letters(20_000)
        for (format, encoding) in [(Zlib.Format.gzip, Inflater.Format.gzip), (.zlib, .deflate), (.zlib, .gzip), (.rawDeflate, .deflate)] {
            let body = try Zlib.compress(text, format: format)
            let chunks = stride(from: 0, to: body.count, by: size).map { Array(body[$0..<min(body.count, $0 + size)]) }
            #expect(try inflate(chunks, encoding) == text, "\(format) as \(encoding) in \(size)-byte chunks")
        }
    }

    @Test func stopsAtTheCapWhateverTheTrailerClaims() throws {
        let bomb = try Zlib.compress([UInt8](repeating: 0, count: 4 << 20), format: .gzip, level: 9)
        #expect(bomb.count < 8 << 10)
        #expect(throws: InflateError.tooLarge(limit: 1 << 20)) { try inflate([bomb], .gzip, limit: 1 << 20) }
        #expect(try inflate([bomb], .gzip, limit: 4 << 20).count == 4 << 20)
    }

    @Test func concatenatedGzipMembersAreOneBodyButJunkAfterTheEndIsNot() throws {
        let a = try Zlib.compress(Array("first ".utf8), format: .gzip)
        let b = try Zlib.compress(Array("second".utf8), format: .gzip)
        #expect(try inflate([a + b], .gzip) == Array("first second".utf8))
        #expect(throws: InflateError.self) { try inflate([a + [0x00, 0x01]], .gzip) }
        let zlib = try Zlib.compress(Array("x".utf8), format: .zlib)
        #expect(throws: InflateError.self) { try inflate([zlib + zlib], .deflate) }
    }

    @Test func truncatedEmptyAndGarbageBodiesFail() throws {
        let body = try Zlib.compress(letters(5000), format: .gzip)
        #expect(throws: InflateError.truncated) { try inflate([Array(body.prefix(body.count / 2))], .gzip) }
        #expect(throws: InflateError.truncated) { try inflate([], .gzip) }
        #expect(throws: InflateError.truncated) { try inflate([[0x78]], .deflate) }  // a lone first byte
        do {
            _ = try inflate([Array("not compressed at all".utf8)], .gzip)
            Issue.record("expected corrupt")
        } catch {
            guard case .corrupt = error else { Issue.record("expected corrupt, got \(error)"); return }
        }
    }
}
