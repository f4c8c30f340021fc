import Foundation

/// A value guarded by a lock, for state that synchronous calls (`record` from any thread) share.
///
/// Not `Synchronization.Mutex`: the package supports iOS 16 and watchOS 9, and Mutex needs
/// iOS 18 / watchOS 11. NSLock exists on every platform the SDK targets.
///
/// Why `@unchecked Sendable` is safe: `value` is private and is only touched inside `withLock`,
/// which holds `lock` for the whole access. The one way around that would be a closure that copies
/// a class reference out of `value`; results must be Sendable, and this type is internal, so every
/// call site is in this module, where closures only read or mutate in place (the DiskQueue inside
/// never leaves its closure).
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: consuming Value) { self.value = value }

    func withLock<R: Sendable, E: Error>(_ body: (inout Value) throws(E) -> R) throws(E) -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
