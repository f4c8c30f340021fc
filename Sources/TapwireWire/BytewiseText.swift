/// A text (or an optional one) that `Bytewise` can compare and hash by its bytes.
public protocol BytewiseText: Sendable {
    static func sameBytes(_ lhs: Self, _ rhs: Self) -> Bool
    func hashBytes(into hasher: inout Hasher)
}

extension String: BytewiseText {
    @inlinable public static func sameBytes(_ lhs: String, _ rhs: String) -> Bool {
        guard lhs.utf8.count == rhs.utf8.count else { return false }
        // A native String's bytes lie in one buffer: compared there, not through the view's
        // iterator (which was a quarter of a rebuilt day's instructions).
        let compared = lhs.utf8.withContiguousStorageIfAvailable { l in
            rhs.utf8.withContiguousStorageIfAvailable { r in sameBytes(UnsafeRawBufferPointer(l), UnsafeRawBufferPointer(r)) }
        }
        return (compared ?? nil) ?? lhs.utf8.elementsEqual(rhs.utf8)
    }

    /// Two buffers of one length compared eight bytes at a time (a generic `elementsEqual` cost
    /// several times more).
    @inlinable static func sameBytes(_ lhs: UnsafeRawBufferPointer, _ rhs: UnsafeRawBufferPointer) -> Bool {
        var at = 0
        while at + 8 <= lhs.count {
            guard lhs.loadUnaligned(fromByteOffset: at, as: UInt64.self) == rhs.loadUnaligned(fromByteOffset: at, as: UInt64.self) else { return false }
            at += 8
        }
        while at < lhs.count {
            guard lhs[at] == rhs[at] else { return false }
            at += 1
        }
        return true
    }

    @inlinable public func hashBytes(into hasher: inout Hasher) {
        if utf8.withContiguousStorageIfAvailable({ hasher.combine(bytes: UnsafeRawBufferPointer($0)) }) == nil {
            for byte in utf8 { hasher.combine(byte) }
        }
        // A terminator, so that the fields of a key hash as a sequence of texts.
        hasher.combine(0xFF as UInt8)
    }
}

extension Optional: BytewiseText where Wrapped: BytewiseText {
    @inlinable public static func sameBytes(_ lhs: Wrapped?, _ rhs: Wrapped?) -> Bool {
        switch (lhs, rhs) {
        case (nil, nil): return true
        case let (l?, r?): return Wrapped.sameBytes(l, r)
        default: return false
        }
    }

    @inlinable public func hashBytes(into hasher: inout Hasher) {
        if let self {
            hasher.combine(true)
            self.hashBytes(into: &hasher)
        } else {
            hasher.combine(false)
        }
    }
}
