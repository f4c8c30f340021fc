// GNU libmicrohttpd, with its variadic entry points wrapped as fixed-argument functions Swift can call.
#ifndef TAPWIRE_CMICROHTTPD_SHIM_H
#define TAPWIRE_CMICROHTTPD_SHIM_H
#include <stdint.h>
#include <stddef.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <microhttpd.h>
#include <sys/ioctl.h>
#include <string.h>
#include <netinet/tcp.h>

/// Everything MHD_start_daemon needs, as one plain struct instead of a varargs option list.
struct tapwire_mhd_options {
    unsigned int flags;
    const struct sockaddr *address;
    unsigned int thread_pool_size;
    unsigned int connection_limit;
    unsigned int per_ip_connection_limit;
    unsigned int connection_timeout_seconds;
    size_t connection_memory_limit;
    unsigned int listen_backlog;
    /// Where libmicrohttpd's own messages go (MHD_USE_ERROR_LOG must be in `flags`).
    MHD_LogCallback logger;
    void *logger_cls;
};

/// The request-line callback of MHD_OPTION_URI_LOG_CALLBACK (called before query arguments are parsed).
typedef void *(*tapwire_mhd_uri_callback)(void *cls, const char *uri, struct MHD_Connection *connection);

static inline struct MHD_Daemon *
tapwire_mhd_start(const struct tapwire_mhd_options *o,
                  MHD_AcceptPolicyCallback accept_policy, void *accept_policy_cls,
                  MHD_AccessHandlerCallback handler, void *handler_cls,
                  MHD_RequestCompletedCallback completed, void *completed_cls,
                  MHD_NotifyConnectionCallback notify, void *notify_cls,
                  tapwire_mhd_uri_callback uri_callback, void *uri_cls) {
    uint16_t port = 0;
    if (o->address->sa_family == AF_INET) {
        port = ntohs(((const struct sockaddr_in *)o->address)->sin_port);
    } else if (o->address->sa_family == AF_INET6) {
        port = ntohs(((const struct sockaddr_in6 *)o->address)->sin6_port);
    }
    /* The logger goes first: options before it would log to standard error. */
    return MHD_start_daemon(o->flags, port, accept_policy, accept_policy_cls, handler, handler_cls,
                            MHD_OPTION_EXTERNAL_LOGGER, o->logger, o->logger_cls,
                            MHD_OPTION_SOCK_ADDR, o->address,
                            MHD_OPTION_THREAD_POOL_SIZE, o->thread_pool_size,
                            MHD_OPTION_CONNECTION_LIMIT, o->connection_limit,
                            MHD_OPTION_PER_IP_CONNECTION_LIMIT, o->per_ip_connection_limit,
                            MHD_OPTION_CONNECTION_TIMEOUT, o->connection_timeout_seconds,
                            MHD_OPTION_CONNECTION_MEMORY_LIMIT, o->connection_memory_limit,
                            MHD_OPTION_LISTEN_BACKLOG_SIZE, o->listen_backlog,
                            MHD_OPTION_NOTIFY_COMPLETED, completed, completed_cls,
                            MHD_OPTION_NOTIFY_CONNECTION, notify, notify_cls,
                            MHD_OPTION_URI_LOG_CALLBACK, uri_callback, uri_cls,
                            MHD_OPTION_END);
}

/// The port the daemon is bound to (useful after binding port 0).
static inline uint16_t tapwire_mhd_bound_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info == NULL ? 0 : info->port;
}

static inline unsigned int tapwire_mhd_current_connections(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_CURRENT_CONNECTIONS);
    return info == NULL ? 0 : info->num_connections;
}

/// The connection's socket, or -1.
static inline int tapwire_mhd_connection_fd(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info == NULL ? -1 : info->connect_fd;
}

/// The per-socket pointer set in the MHD_OPTION_NOTIFY_CONNECTION callback, or NULL.
static inline void *tapwire_mhd_socket_context(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return info == NULL ? NULL : info->socket_context;
}

/// Bytes of the current request's head (request line, header lines and the blank line), as
/// libmicrohttpd counted them while parsing; 0 when unknown.
static inline size_t tapwire_mhd_request_header_size(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_REQUEST_HEADER_SIZE);
    return info == NULL ? 0 : info->header_size;
}

/// Payload bytes the kernel has received on a TCP socket since it was established, read or not
/// (Linux's tcpi_bytes_received, RFC 4898's HCThruOctetsReceived); -1 when the kernel cannot tell.
static inline int64_t tapwire_tcp_bytes_received(int fd) {
    /* glibc's struct tcp_info stops before this field (and Linux's own header clashes with glibc's
     * inside one Clang module), so it is read at its offset in the kernel's UAPI layout, which
     * only ever grows at the end: tcpi_bytes_received is the u64 at byte 128 (Linux 4.1 and later). */
    enum { bytes_received_offset = 128 };
    unsigned char info[256];
    socklen_t length = sizeof(info);
    memset(info, 0, sizeof(info));
    if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, info, &length) != 0) return -1;
    if (length < bytes_received_offset + sizeof(uint64_t)) return -1;
    uint64_t value;
    memcpy(&value, info + bytes_received_offset, sizeof(value));
    return (int64_t)value;
}

/// Bytes received on a socket that nobody has read yet; -1 on error.
static inline int tapwire_socket_unread_bytes(int fd) {
    int count = 0;
    return ioctl(fd, FIONREAD, &count) == 0 ? count : -1;
}

static const int tapwire_mhd_yes = MHD_YES;
static const int tapwire_mhd_no = MHD_NO;
#endif
