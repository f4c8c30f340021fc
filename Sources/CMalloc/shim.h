// glibc's allocator settings (<malloc.h>, which the Swift Glibc module leaves out), as functions
// Swift can call: the collector sets them once at start (TapwireServer/AllocatorSettings.swift).
#ifndef TAPWIRE_CMALLOC_SHIM_H
#define TAPWIRE_CMALLOC_SHIM_H
#if __has_include(<malloc.h>)
#include <malloc.h>
#endif

/// 1 when glibc took the setting, 0 when it refused it, -1 on a C library without mallopt.
static inline int tapwire_malloc_arena_max(int arenas) {
#if defined(M_ARENA_MAX)
    return mallopt(M_ARENA_MAX, arenas);
#else
    (void)arenas;
    return -1;
#endif
}

#endif
