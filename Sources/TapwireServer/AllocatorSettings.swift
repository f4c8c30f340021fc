import CMalloc

/// How the C allocator (glibc's malloc, which Swift's allocations go through) is set up for the
/// collector, once at start, before its threads: every libmicrohttpd, handler, writer, reader
/// and fold thread allocates, and glibc gives threads arenas of their own (up to 8 per core),
/// each of which keeps the memory its thread freed. Why these defaults and what they cost:
/// docs/ingestion.md, "The collector's memory". The one place that calls `mallopt`.
public struct AllocatorSettings: Sendable, Equatable {
    /// Arenas all threads share (M_ARENA_MAX); 0 leaves glibc's default (8 per core).
    public var arenas = 2

    public init() {}

    /// Sets what is not left at glibc's default; returns the names of the settings glibc
    /// refused or this C library lacks (empty when all were taken).
    @discardableResult
    public func apply() -> [String] {
        var refused: [String] = []
        if arenas > 0, tapwire_malloc_arena_max(Int32(clamping: arenas)) != 1 { refused.append("arenas") }
        return refused
    }
}
