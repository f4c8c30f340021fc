import CZlib

/// Every zlib call of the SDK, and so every Unsafe pointer: gzip for upload bodies, CRC-32 for
/// queue record checksums, and a bounded gunzip so tests can check what was actually sent.
public enum Zlib {
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

    /// One gzip member (RFC 1952) holding `input`, as `Content-Encoding: gzip` wants it.
    public static func gzip(_ input: [UInt8], level: Int32 = 6) throws(Failure) -> [UInt8] {
        var stream = z_stream()
        let initStatus = tapwire_deflate_init(&stream, level, 15 + 16)
        guard initStatus == Z_OK else { throw Failure(code: .initFailed, zlibStatus: initStatus) }
        defer { deflateEnd(&stream) }
        var source = input
        // deflateBound accounts for the gzip wrapper chosen at init, so one Z_FINISH call suffices.
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(source.count))) + 64)
        var status: Int32 = Z_OK
        let produced = source.withUnsafeMutableBufferPointer { inBuffer in
            output.withUnsafeMutableBufferPointer { outBuffer in
                stream.next_in = inBuffer.baseAddress
                stream.avail_in = uInt(inBuffer.count)
                stream.next_out = outBuffer.baseAddress
                stream.avail_out = uInt(outBuffer.count)
                status = deflate(&stream, Z_FINISH)
                return outBuffer.count - Int(stream.avail_out)
            }
        }
        guard status == Z_STREAM_END else { throw Failure(code: .streamError, zlibStatus: status) }
        output.removeSubrange(produced...)
        return output
    }

    /// Inflates gzip or zlib data, failing with `.tooLarge` past `maxOutput` bytes (the ISIZE
    /// trailer is never trusted) and with `.truncated` when the stream ends early.
    public static func gunzip(_ input: [UInt8], maxOutput: Int = 64 << 20) throws(Failure) -> [UInt8] {
        var stream = z_stream()
        let initStatus = tapwire_inflate_init(&stream, 15 + 32)
        guard initStatus == Z_OK else { throw Failure(code: .initFailed, zlibStatus: initStatus) }
        defer { inflateEnd(&stream) }
        var source = input
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        var failure: Failure?
        source.withUnsafeMutableBufferPointer { inBuffer in
            stream.next_in = inBuffer.baseAddress
            stream.avail_in = uInt(inBuffer.count)
            while true {
                var status: Int32 = Z_OK
                let produced = chunk.withUnsafeMutableBufferPointer { outBuffer in
                    stream.next_out = outBuffer.baseAddress
                    stream.avail_out = uInt(outBuffer.count)
                    status = inflate(&stream, Z_NO_FLUSH)
                    return outBuffer.count - Int(stream.avail_out)
                }
                if status == Z_BUF_ERROR {
                    failure = Failure(code: .truncated, zlibStatus: status)
                    return
                }
                guard status == Z_OK || status == Z_STREAM_END else {
                    failure = Failure(code: .corrupt, zlibStatus: status)
                    return
                }
                guard output.count + produced <= maxOutput else {
                    failure = Failure(code: .tooLarge, zlibStatus: status)
                    return
                }
                output.append(contentsOf: chunk[0..<produced])
                if status == Z_STREAM_END { return }
                if stream.avail_in == 0 && produced < chunk.count {
                    failure = Failure(code: .truncated, zlibStatus: status)
                    return
                }
            }
        }
        if let failure { throw failure }
        return output
    }

    /// CRC-32 (the gzip/PNG polynomial), continuing from `initial`.
    public static func crc32(_ bytes: [UInt8], initial: UInt32 = 0) -> UInt32 {
        bytes.withUnsafeBufferPointer { buffer in
            UInt32(truncatingIfNeeded: CZlib.crc32(uLong(initial), buffer.baseAddress, uInt(buffer.count)))
        }
    }
}
