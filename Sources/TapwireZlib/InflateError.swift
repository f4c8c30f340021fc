import CZlib

/// Why a compressed body could not be decoded.
public enum InflateError: Error, Sendable, Equatable {
    /// Decompressed output passed the cap (a zip bomb, or simply too much data).
    case tooLarge(limit: Int)
    /// Not valid gzip/deflate data.
    case corrupt(String)
    /// The stream ended before its end marker.
    case truncated
}
