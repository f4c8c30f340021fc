import CZlib

/// Streaming gzip/deflate decoding with a hard cap on output, fed as a body arrives (the
/// collector's decompression-bomb guard, and `Zlib.decompress`). The cap is checked as bytes come
/// out of zlib; the gzip ISIZE trailer is never consulted. This file owns the z_stream and every
/// inflate call.
public final class Inflater {
    /// `Content-Encoding: gzip` (a gzip or zlib header is detected), or `deflate` (zlib, or raw
    /// deflate when the first two bytes are no zlib header).
    public enum Format: Sendable { case gzip, deflate }

    private var stream = z_stream()
    private var initialized = false
    private let format: Format
    private var sawStreamEnd = false
    private var pendingHeader: [UInt8] = []
    private let limit: Int
    public private(set) var output: [UInt8] = []
    /// What zlib last returned (for error descriptions).
    public private(set) var zlibStatus: Int32 = Z_OK

    public init(format: Format, limit: Int) {
        self.format = format
        self.limit = limit
    }

    deinit {
        if initialized { inflateEnd(&stream) }
    }

    /// zlib window bits: 15+32 detects a gzip or zlib header; -15 is raw deflate, which some
    /// clients send as "Content-Encoding: deflate" despite RFC 9110 saying zlib format.
    private func start(firstBytes: UnsafeRawBufferPointer) throws(InflateError) {
        var bits: Int32 = 15 + 32
        if format == .deflate, firstBytes.count >= 2 {
            let cmf = firstBytes[0], flg = firstBytes[1]
            let zlibHeader = cmf & 0x0F == 8 && (UInt16(cmf) << 8 | UInt16(flg)) % 31 == 0
            if !zlibHeader { bits = -15 }
        }
        let status = tapwire_inflate_init(&stream, bits)
        zlibStatus = status
        guard status == Z_OK else { throw .corrupt("zlib could not start (\(status))") }
        initialized = true
    }

    /// Decodes one chunk of the body. Throws as soon as the output would pass the cap.
    public func feed(_ chunk: [UInt8]) throws(InflateError) {
        var failure: InflateError?
        chunk.withUnsafeBytes { bytes in
            do throws(InflateError) { try feed(bytes) } catch { failure = error }
        }
        if let failure { throw failure }
    }

    private func feed(_ chunk: UnsafeRawBufferPointer) throws(InflateError) {
        guard chunk.count > 0 else { return }
        if !initialized {
            // The deflate flavour is decided from the first two bytes; hold a lone first byte.
            if format == .deflate, pendingHeader.count + chunk.count < 2 {
                pendingHeader.append(contentsOf: chunk)
                return
            }
            if !pendingHeader.isEmpty {
                let joined = pendingHeader + Array(chunk)
                pendingHeader = []
                var failure: InflateError?
                joined.withUnsafeBytes { bytes in
                    do throws(InflateError) {
                        try start(firstBytes: bytes)
                        try inflate(bytes)
                    } catch {
                        failure = error
                    }
                }
                if let failure { throw failure }
                return
            }
            try start(firstBytes: chunk)
        }
        try inflate(chunk)
    }

    private func inflate(_ chunk: UnsafeRawBufferPointer) throws(InflateError) {
        var offset = 0
        var scratch = [UInt8](repeating: 0, count: 64 * 1024)
        while offset < chunk.count {
            if sawStreamEnd {
                // Concatenated gzip members are one valid gzip body; anything else after the end is junk.
                guard format == .gzip, chunk[offset] == 0x1F else { throw .corrupt("data after the end of the compressed stream") }
                inflateReset(&stream)
                sawStreamEnd = false
            }
            let status: Int32 = scratch.withUnsafeMutableBufferPointer { out in
                stream.next_in = UnsafeMutablePointer(mutating: chunk.baseAddress!.advanced(by: offset).assumingMemoryBound(to: Bytef.self))
                stream.avail_in = uInt(chunk.count - offset)
                var result: Int32 = Z_OK
                repeat {
                    stream.next_out = out.baseAddress
                    stream.avail_out = uInt(out.count)
                    result = CZlib.inflate(&stream, Z_NO_FLUSH)
                    zlibStatus = result
                    let produced = out.count - Int(stream.avail_out)
                    if output.count + produced > limit { return -100 }
                    output.append(contentsOf: out[0..<produced])
                } while result == Z_OK && stream.avail_out == 0
                let consumed = (chunk.count - offset) - Int(stream.avail_in)
                offset += consumed
                stream.next_in = nil
                stream.next_out = nil
                return result
            }
            switch status {
            case -100: throw .tooLarge(limit: limit)
            case Z_STREAM_END: sawStreamEnd = true
            case Z_OK, Z_BUF_ERROR: continue
            case Z_DATA_ERROR: throw .corrupt(stream.msg.map { String(cString: $0) } ?? "invalid compressed data")
            case Z_NEED_DICT: throw .corrupt("a preset dictionary is not supported")
            default: throw .corrupt("zlib error \(status)")
            }
        }
    }

    /// Called when the body is complete: the stream must have reached its end marker.
    public func finish() throws(InflateError) {
        if !pendingHeader.isEmpty || !initialized || !sawStreamEnd { throw .truncated }
    }
}
