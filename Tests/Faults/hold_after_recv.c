/*
 * Fault injection for the upload watchdog's tests (never linked into the product): an LD_PRELOAD
 * shim that freezes the thread that called recv() right after recv() has taken bytes out of the
 * kernel, before it returns them. That is the collector "holding" a client's bytes: a thread
 * descheduled (a stolen vCPU, a starved process) after libmicrohttpd read the body and before it
 * handed the body to Tapwire. Only reads whose bytes contain TAPWIRE_FAULT_HOLD_MARKER are held,
 * for TAPWIRE_FAULT_HOLD_MS milliseconds (default 3000); every other read is untouched, and so
 * are MSG_PEEK reads.
 *
 *   cc -shared -fPIC -O2 -o libhold.so Tests/Faults/hold_after_recv.c -ldl
 *   LD_PRELOAD=$PWD/libhold.so TAPWIRE_FAULT_HOLD_MARKER=... tapwire serve ...
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <time.h>

typedef ssize_t (*recv_function)(int, void *, size_t, int);

ssize_t recv(int fd, void *buffer, size_t length, int flags) {
    static recv_function real_recv;
    if (real_recv == NULL) real_recv = (recv_function)dlsym(RTLD_NEXT, "recv");
    ssize_t received = real_recv(fd, buffer, length, flags);
    if (received <= 0 || (flags & MSG_PEEK)) return received;
    const char *marker = getenv("TAPWIRE_FAULT_HOLD_MARKER");
    if (marker == NULL || *marker == '\0' || memmem(buffer, (size_t)received, marker, strlen(marker)) == NULL) return received;
    const char *text = getenv("TAPWIRE_FAULT_HOLD_MS");
    long hold = text != NULL ? atol(text) : 3000;
    struct timespec left = { hold / 1000, (hold % 1000) * 1000000L };
    int saved = errno;
    while (nanosleep(&left, &left) == -1 && errno == EINTR) {}
    errno = saved;
    return received;
}
