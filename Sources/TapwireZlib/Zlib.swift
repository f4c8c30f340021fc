import CZlib

/// One-shot zlib: compression for the SDK's upload bodies and the tools that post to the
/// collector, a bounded decompression, and CRC-32 for the SDK's queue records. This module is
/// the project's one zlib wrapper: every zlib call, and every pointer handed to zlib, is in this
/// file or in `Inflater.swift` (the streaming decoder the collector reads bodies with).
public enum Zlib {
    /// The container around the deflate data: gzip (RFC 1952, `Content-Encoding: gzip`), zlib
    /// (RFC 1950, what `Content-Encoding: deflate` means) or raw deflate (RFC 1951, which some
    /// clients send as `deflate` anyway).
    public enum Format: Sendable { case gzip, zlib, rawDeflate }

    public struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
        public enum Code: String, Sendable {
            case initFailed = "zlib_init_failed"
            case streamError = "zlib_stream_error"
            case corrupt = "corrupt_gzip"
            case truncated = "truncated_gzip"
            case tooLarge = "inflated_too_large"
        }
        public var code: Code
        public var zlibStatus: Int32
        public var description: String { "\(code.rawValue) (zlib status \(zlibStatus))" }
    }

    /// `input` compressed in one call, in `format`.
    public static func compress(_ input: [UInt8], format: Format = .gzip, level: Int32 = 6) throws(Failure) -> [UInt8] {
        let bits: Int32
        switch format {
        case .gzip: bits = 15 + 16
        case .zlib: bits = 15
        case .rawDeflate: bits = -15
        }
        var stream = z_stream()
        let initStatus = tapwire_deflate_init(&stream, level, bits)
        guard initStatus == Z_OK else { throw Failure(code: .initFailed, zlibStatus: initStatus) }
        defer { deflateEnd(&stream) }
        // deflateBound accounts for the wrapper chosen at init, so one Z_FINISH call suffices.
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(input.count))) + 64)
        var status: Int32 = Z_OK
        let produced = input.withUnsafeBufferPointer { inBuffer in
            output.withUnsafeMutableBufferPointer { outBuffer in
                stream.next_in = UnsafeMutablePointer(mutating: inBuffer.baseAddress)
                stream.avail_in = uInt(inBuffer.count)
                stream.next_out = outBuffer.baseAddress
                stream.avail_out = uInt(outBuffer.count)
                status = deflate(&stream, Z_FINISH)
                stream.next_in = nil
                stream.next_out = nil
                return outBuffer.count - Int(stream.avail_out)
            }
        }
        guard status == Z_STREAM_END else { throw Failure(code: .streamError, zlibStatus: status) }
        output.removeSubrange(produced...)
        return output
    }

    /// Inflates gzip or zlib data (detected from its header), failing with `.tooLarge` past
    /// `maxOutput` bytes (the ISIZE trailer is never trusted), `.truncated` when the stream ends
    /// early and `.corrupt` for anything else that is not one complete stream (concatenated gzip
    /// members count as one). The streaming `Inflater` does the work.
    public static func decompress(_ input: [UInt8], maxOutput: Int = 64 << 20) throws(Failure) -> [UInt8] {
        let inflater = Inflater(format: .gzip, limit: maxOutput)
        do {
            try inflater.feed(input)
            try inflater.finish()
        } catch {
            switch error {
            case .tooLarge: throw Failure(code: .tooLarge, zlibStatus: inflater.zlibStatus)
            case .truncated: throw Failure(code: .truncated, zlibStatus: inflater.zlibStatus)
            case .corrupt: throw Failure(code: .corrupt, zlibStatus: inflater.zlibStatus)
            }
        }
        return inflater.output
    }

    /// CRC-32 (the gzip/PNG polynomial), continuing from `initial`.
    public static func crc32(_ bytes: [UInt8], initial: UInt32 = 0) -> UInt32 {
        bytes.withUnsafeBufferPointer { buffer in
            UInt32(truncatingIfNeeded: CZlib.crc32(uLong(initial), buffer.baseAddress, uInt(buffer.count)))
        }
    }
}
