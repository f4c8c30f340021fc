// The C library's standard output stream, as a function Swift can call: Swift 6 refuses to read
// the global `stdout` (shared mutable state), and a command line tool sets its buffering once at
// start (TapwireCommandLine/CommandLineTool.swift).
#ifndef TAPWIRE_CSTDIO_SHIM_H
#define TAPWIRE_CSTDIO_SHIM_H
#include <stdio.h>

/// Flushes standard output at every newline even when it is a file or a pipe. 0 on success.
static inline int tapwire_line_buffer_stdout(void) {
    return setvbuf(stdout, NULL, _IOLBF, 0);
}

#endif
