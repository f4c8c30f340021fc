import Foundation
import TapwireZlib

/// One fuzz input: a header byte that picks the endpoint, how the payload is encoded on the wire
/// and how it is split into socket reads, then the payload. The same bytes always mean the same
/// request, so a finding replays exactly.
public struct FuzzInput: Sendable, Equatable {
    public enum Target: Sendable { case batch, manifest }

    /// How the payload becomes the wire body and which Content-Encoding is sent.
    public enum Wire: Int, Sendable, CaseIterable {
        /// The payload is the body (no encoding).
        case identity
        /// The payload is JSON that we gzip: the fuzzer reaches the JSON layer through gzip.
        case gzipOfPayload
        /// The payload is JSON that we zlib-compress (Content-Encoding: deflate).
        case zlibOfPayload
        /// The payload is JSON that we raw-deflate (Content-Encoding: deflate, no zlib header).
        case rawDeflateOfPayload
        /// The payload is sent as is, labelled gzip: the inflater gets arbitrary bytes.
        case payloadAsGzip
        /// The payload is sent as is, labelled deflate.
        case payloadAsDeflate
        /// gzip of the payload, then cut in half: a truncated stream.
        case truncatedGzip
        /// An odd Content-Encoding header (case, spaces, unknown names).
        case oddHeader
    }

    public var target: Target
    public var wire: Wire
    /// Sizes of the reads the body arrives in (cycled).
    public var chunkSizes: [Int]
    public var payload: [UInt8]

    public init(target: Target, wire: Wire, chunkSizes: [Int], payload: [UInt8]) {
        self.target = target
        self.wire = wire
        self.chunkSizes = chunkSizes
        self.payload = payload
    }

    /// Reads the header byte: bit 0 target, bits 1-3 wire, bits 4-7 the chunk pattern.
    public init(bytes: [UInt8]) {
        let header = bytes.first ?? 0
        target = header & 1 == 0 ? .batch : .manifest
        wire = Wire(rawValue: Int(header >> 1) & 7) ?? .identity
        chunkSizes = FuzzInput.chunkPatterns[Int(header >> 4)]
        payload = Array(bytes.dropFirst())
    }

    public var bytes: [UInt8] {
        let pattern = FuzzInput.chunkPatterns.firstIndex(of: chunkSizes) ?? 0
        let header = UInt8(target == .batch ? 0 : 1) | UInt8(wire.rawValue << 1) | UInt8(pattern << 4)
        return [header] + payload
    }

    static let chunkPatterns: [[Int]] = [
        [], [1], [2], [3], [7], [1, 13], [64], [100, 1], [511], [1024], [4096], [1, 2, 3, 5, 8, 13], [16_384], [10, 65_536], [17], [1, 4095],
    ]

    static let oddHeaders = ["GZIP", " gzip ", "x-gzip", "Deflate", "identity", "", "br", "gzip, deflate", "compress", "zstd"]

    /// The body and Content-Encoding header the server would receive.
    public func wireBody() -> (body: [UInt8], contentEncoding: String?) {
        switch wire {
        case .identity: return (payload, nil)
        case .gzipOfPayload: return (compressed(payload, .gzip), "gzip")
        case .zlibOfPayload: return (compressed(payload, .zlib), "deflate")
        case .rawDeflateOfPayload: return (compressed(payload, .rawDeflate), "deflate")
        case .payloadAsGzip: return (payload, "gzip")
        case .payloadAsDeflate: return (payload, "deflate")
        case .truncatedGzip:
            let full = compressed(payload, .gzip)
            return (Array(full.prefix(full.count / 2)), "gzip")
        case .oddHeader:
            let name = FuzzInput.oddHeaders[payload.count % FuzzInput.oddHeaders.count]
            let lowered = name.trimmingCharacters(in: [" "]).lowercased()
            if lowered == "gzip" || lowered == "x-gzip" { return (compressed(payload, .gzip), name) }
            if lowered == "deflate" { return (compressed(payload, .zlib), name) }
            return (payload, name)
        }
    }

    /// zlib fails only when out of memory; the case then sends an empty body.
    private func compressed(_ bytes: [UInt8], _ format: Zlib.Format) -> [UInt8] {
        (try? Zlib.compress(bytes, format: format)) ?? []
    }
}
