import CZlib

/// gzip/deflate compression, for tools that post to the collector (bench, demo, tests) and for
/// compressing large responses. All zlib deflate calls are here.
public enum Compression {
    public enum Format: Sendable { case gzip, zlib, rawDeflate }

    public static func compress(_ input: [UInt8], format: Format = .gzip, level: Int32 = 6) -> [UInt8] {
        var stream = z_stream()
        let bits: Int32
        switch format {
        case .gzip: bits = 15 + 16
        case .zlib: bits = 15
        case .rawDeflate: bits = -15
        }
        guard tapwire_deflate_init(&stream, level, bits) == Z_OK else { return [] }
        defer { deflateEnd(&stream) }
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(input.count))) + 64)
        let produced: Int = input.withUnsafeBufferPointer { inBuffer in
            output.withUnsafeMutableBufferPointer { outBuffer in
                stream.next_in = UnsafeMutablePointer(mutating: inBuffer.baseAddress)
                stream.avail_in = uInt(inBuffer.count)
                stream.next_out = outBuffer.baseAddress
                stream.avail_out = uInt(outBuffer.count)
                let status = deflate(&stream, Z_FINISH)
                stream.next_in = nil
                stream.next_out = nil
                return status == Z_STREAM_END ? outBuffer.count - Int(stream.avail_out) : -1
            }
        }
        guard produced >= 0 else { return [] }
        return Array(output[0..<produced])
    }
}
