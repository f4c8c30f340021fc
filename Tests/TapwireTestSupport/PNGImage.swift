import Foundation
import TapwireZlib

/// The pixels of a PNG as a browser's screenshot writes it (8-bit RGB or RGBA, not interlaced),
/// so a test can check what was drawn, not only what the DOM says.
public struct PNGImage: Sendable {
    public var width: Int
    public var height: Int
    /// RGB triples, row by row.
    public var pixels: [UInt8]

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    public init(_ data: [UInt8]) throws {
        guard data.count > 8, Array(data.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] else {
            throw Failure(description: "not a PNG")
        }
        func be32(_ at: Int) -> Int { data[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }
        var offset = 8, header: ArraySlice<UInt8> = [], compressed: [UInt8] = []
        while offset + 12 <= data.count {
            let length = be32(offset), type = String(decoding: data[offset + 4..<offset + 8], as: UTF8.self)
            guard offset + 12 + length <= data.count else { throw Failure(description: "chunk \(type) runs past the end") }
            let body = data[offset + 8..<offset + 8 + length]
            if type == "IHDR" { header = body } else if type == "IDAT" { compressed += body } else if type == "IEND" { break }
            offset += 12 + length
        }
        guard header.count == 13 else { throw Failure(description: "no IHDR") }
        let h = Array(header)
        width = h[0..<4].reduce(0) { $0 << 8 | Int($1) }
        height = h[4..<8].reduce(0) { $0 << 8 | Int($1) }
        let (depth, colour, interlace) = (h[8], h[9], h[12])
        guard depth == 8, colour == 2 || colour == 6, interlace == 0 else {
            throw Failure(description: "PNG of depth \(depth), colour type \(colour), interlace \(interlace): only 8-bit RGB(A) is read")
        }
        let channels = colour == 6 ? 4 : 3, stride = width * channels
        let raw = try Zlib.decompress(compressed, maxOutput: (stride + 1) * height)
        guard raw.count == (stride + 1) * height else { throw Failure(description: "\(raw.count) bytes of image data for \(width)×\(height)") }
        // Undo each row's filter (PNG specification, section 9).
        var previous = [UInt8](repeating: 0, count: stride), rgb: [UInt8] = []
        rgb.reserveCapacity(width * height * 3)
        for y in 0..<height {
            let filter = raw[y * (stride + 1)]
            var row = Array(raw[y * (stride + 1) + 1..<(y + 1) * (stride + 1)])
            for i in 0..<stride {
                let a = i >= channels ? Int(row[i - channels]) : 0, b = Int(previous[i]), c = i >= channels ? Int(previous[i - channels]) : 0
                let predictor: Int
                switch filter {
                case 0: predictor = 0
                case 1: predictor = a
                case 2: predictor = b
                case 3: predictor = (a + b) / 2
                case 4:
                    let p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c)
                    predictor = pa <= pb && pa <= pc ? a : pb <= pc ? b : c
                default: throw Failure(description: "row \(y) has filter \(filter)")
                }
                row[i] = UInt8(truncatingIfNeeded: Int(row[i]) + predictor)
            }
            for x in 0..<width { rgb += row[x * channels..<x * channels + 3] }
            previous = row
        }
        pixels = rgb
    }

    /// How many pixels lie within `tolerance` (per channel) of the colour `#rrggbb`.
    public func count(_ hex: String, tolerance: Int = 0) -> Int {
        let value = Int(hex.dropFirst(), radix: 16) ?? 0
        let target = [value >> 16 & 0xFF, value >> 8 & 0xFF, value & 0xFF]
        var n = 0
        for p in stride(from: 0, to: pixels.count, by: 3)
        where abs(Int(pixels[p]) - target[0]) <= tolerance && abs(Int(pixels[p + 1]) - target[1]) <= tolerance
            && abs(Int(pixels[p + 2]) - target[2]) <= tolerance {
            n += 1
        }
        return n
    }
}
