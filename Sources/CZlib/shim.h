// zlib, with the init macros (which take sizeof(z_stream) and a version string) as functions Swift can call.
#ifndef TAPWIRE_CZLIB_SHIM_H
#define TAPWIRE_CZLIB_SHIM_H
#include <zlib.h>

/// windowBits 15+32: zlib or gzip, detected from the header. -15: raw deflate.
static inline int tapwire_inflate_init(z_stream *stream, int window_bits) {
    return inflateInit2(stream, window_bits);
}

/// windowBits 15+16 writes a gzip wrapper; 15 a zlib wrapper.
static inline int tapwire_deflate_init(z_stream *stream, int level, int window_bits) {
    return deflateInit2(stream, level, Z_DEFLATED, window_bits, 8, Z_DEFAULT_STRATEGY);
}
#endif
